-- Throttling as a share of the CFS periods that elapsed: the periods of each container-second
-- (null in rows recorded before, whose throttled counts are read as at most 10 a second).
ALTER TABLE "container_samples" ADD COLUMN "periods" INTEGER;

-- Host noise: each second of the load, the host's busy CPU (/proc/stat), the run's containers',
-- the worker's own and what else used the host (null: a container's reading of the second was
-- missing), all in % of one core.
CREATE TABLE "host_samples" (
  "run_id" TEXT NOT NULL REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "t" INTEGER NOT NULL,
  "cores" INTEGER NOT NULL,
  "host_cpu_pct" DOUBLE PRECISION NOT NULL,
  "run_cpu_pct" DOUBLE PRECISION NOT NULL,
  "worker_cpu_pct" DOUBLE PRECISION NOT NULL,
  "other_cpu_pct" DOUBLE PRECISION,
  PRIMARY KEY ("run_id", "t")
);
