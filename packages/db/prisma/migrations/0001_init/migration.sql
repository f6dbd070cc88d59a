CREATE TABLE "runs" (
  "id" TEXT PRIMARY KEY,
  "name" TEXT,
  "status" TEXT NOT NULL DEFAULT 'queued',
  "step" TEXT NOT NULL DEFAULT 'queued',
  "step_detail" TEXT,
  "error" TEXT,
  "topology" JSONB NOT NULL,
  "workload" JSONB NOT NULL,
  "host" JSONB,
  "summary" JSONB,
  "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
  "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMP(3) NOT NULL,
  "started_at" TIMESTAMP(3),
  "load_started_at" TIMESTAMP(3),
  "finished_at" TIMESTAMP(3)
);
CREATE INDEX "runs_created_at_idx" ON "runs" ("created_at");

CREATE TABLE "run_samples" (
  "run_id" TEXT NOT NULL REFERENCES "runs"("id") ON DELETE CASCADE,
  "t" INTEGER NOT NULL,
  "requests" INTEGER NOT NULL,
  "errors" INTEGER NOT NULL,
  "lat_avg" DOUBLE PRECISION NOT NULL,
  "lat_p50" DOUBLE PRECISION NOT NULL,
  "lat_p90" DOUBLE PRECISION NOT NULL,
  "lat_p95" DOUBLE PRECISION NOT NULL,
  "lat_p99" DOUBLE PRECISION NOT NULL,
  "lat_max" DOUBLE PRECISION NOT NULL,
  "backends" JSONB,
  PRIMARY KEY ("run_id", "t")
);

CREATE TABLE "container_samples" (
  "run_id" TEXT NOT NULL REFERENCES "runs"("id") ON DELETE CASCADE,
  "t" INTEGER NOT NULL,
  "container" TEXT NOT NULL,
  "role" TEXT NOT NULL,
  "cpu_pct" DOUBLE PRECISION NOT NULL,
  "mem_bytes" BIGINT NOT NULL,
  "throttled_periods" INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY ("run_id", "t", "container")
);

CREATE TABLE "run_events" (
  "id" BIGSERIAL PRIMARY KEY,
  "run_id" TEXT NOT NULL REFERENCES "runs"("id") ON DELETE CASCADE,
  "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "step" TEXT NOT NULL,
  "level" TEXT NOT NULL DEFAULT 'info',
  "message" TEXT NOT NULL
);
CREATE INDEX "run_events_run_id_at_idx" ON "run_events" ("run_id", "at");
