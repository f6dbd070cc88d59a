-- The run's fault timeline; each fault gains `actual` (its applied time, or why it failed).
ALTER TABLE "runs" ADD COLUMN "faults" JSONB NOT NULL DEFAULT '[]';
