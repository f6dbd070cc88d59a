-- Experiments: variants of a base run, each run several times; runs point at their experiment,
-- variant, repetition and attempt (2 = the retry of a failed run).
CREATE TABLE "experiments" (
  "id" TEXT PRIMARY KEY,
  "name" TEXT NOT NULL,
  "definition" JSONB NOT NULL,
  "variants" JSONB NOT NULL,
  "baseline" INTEGER NOT NULL DEFAULT 0,
  "repetitions" INTEGER NOT NULL,
  "settle_seconds" INTEGER NOT NULL,
  "planned_runs" INTEGER NOT NULL,
  "estimated_seconds" INTEGER NOT NULL,
  "preset" TEXT,
  "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
  "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMP(3) NOT NULL
);
CREATE INDEX "experiments_created_at_idx" ON "experiments"("created_at");

ALTER TABLE "runs"
  ADD COLUMN "experiment_id" TEXT REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  ADD COLUMN "variant" INTEGER,
  ADD COLUMN "repetition" INTEGER,
  ADD COLUMN "attempt" INTEGER NOT NULL DEFAULT 1;
CREATE INDEX "runs_experiment_id_idx" ON "runs"("experiment_id");
