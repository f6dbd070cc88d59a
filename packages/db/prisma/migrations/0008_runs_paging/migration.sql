-- Keyset paging of runs and experiments, newest first: ORDER BY created_at DESC, id DESC reads
-- these indexes backwards. A run whose delete was asked while it ran is hidden from the list and
-- removed by the worker once it has torn the run down.
CREATE INDEX "runs_created_at_id_idx" ON "runs"("created_at", "id");
DROP INDEX IF EXISTS "runs_created_at_idx";
CREATE INDEX "experiments_created_at_id_idx" ON "experiments"("created_at", "id");
DROP INDEX IF EXISTS "experiments_created_at_idx";
ALTER TABLE "runs" ADD COLUMN "delete_requested" BOOLEAN NOT NULL DEFAULT false;
