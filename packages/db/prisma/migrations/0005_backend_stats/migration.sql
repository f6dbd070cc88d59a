-- Per-backend truth of each second (packages/scenarios/src/backends.ts): requests, errors by kind and
-- latency per backend, and the second's errors by kind; null in seconds recorded before them.
ALTER TABLE "run_samples" ADD COLUMN "backend_stats" JSONB;
ALTER TABLE "run_samples" ADD COLUMN "error_kinds" JSONB;
