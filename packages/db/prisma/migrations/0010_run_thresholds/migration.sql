-- A run's thresholds (scenarios contract/thresholds.ts): [{ metric, op, value }], evaluated by the
-- worker when the run succeeds into summary.thresholds. Runs recorded before have none.
ALTER TABLE "runs" ADD COLUMN "thresholds" JSONB NOT NULL DEFAULT '[]';
