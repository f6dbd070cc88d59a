-- Per-second figures of a run's components (worker pool, broker, downstream), one row a second.
CREATE TABLE "figure_samples" (
  "run_id" TEXT NOT NULL,
  "t" INTEGER NOT NULL,
  "figures" JSONB NOT NULL,
  CONSTRAINT "figure_samples_pkey" PRIMARY KEY ("run_id", "t"),
  CONSTRAINT "figure_samples_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
