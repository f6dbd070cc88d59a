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
