-- A second in which no request completed has no latency; it was stored as 0 ms.
ALTER TABLE "run_samples"
  ALTER COLUMN "lat_avg" DROP NOT NULL,
  ALTER COLUMN "lat_p50" DROP NOT NULL,
  ALTER COLUMN "lat_p90" DROP NOT NULL,
  ALTER COLUMN "lat_p95" DROP NOT NULL,
  ALTER COLUMN "lat_p99" DROP NOT NULL,
  ALTER COLUMN "lat_max" DROP NOT NULL;
