-- Engines (issue 18): Docker Swarm clusters a run can name (`engine`), besides the lab's own
-- engine `local`, which is never stored. Written only by the lab's host command (`lab engine add`),
-- never through the API. `config` is @scalelab/scenarios/contract ZEngineConfig.
CREATE TABLE "engines" (
  "name" TEXT PRIMARY KEY,
  "kind" TEXT NOT NULL,
  "config" JSONB NOT NULL,
  "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The engine a run ran on (its `engine`: "local" or a stored engine's name; not a foreign key, so
-- removing an engine keeps the runs that used it).
ALTER TABLE "runs" ADD COLUMN "engine" TEXT NOT NULL DEFAULT 'local';

-- The host's CPU per node of the engine ("local" on the lab's own engine).
ALTER TABLE "host_samples" ADD COLUMN "node" TEXT NOT NULL DEFAULT 'local';
ALTER TABLE "host_samples" DROP CONSTRAINT "host_samples_pkey";
ALTER TABLE "host_samples" ADD PRIMARY KEY ("run_id", "node", "t");
