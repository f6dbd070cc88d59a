-- Baselines (issue 17): at most one per kind and name, marked and unmarked through
-- PUT/DELETE /runs/{id}/baseline and /experiments/{id}/baseline. `target_id` is the run's or the
-- experiment's id; a mark whose target is deleted goes with it (the triggers below), whoever deletes
-- it (the web, or the worker finishing a delete asked while the run was running).
CREATE TABLE "baselines" (
  "kind" TEXT NOT NULL CHECK ("kind" IN ('run', 'experiment')),
  "name" TEXT NOT NULL,
  "target_id" TEXT NOT NULL,
  "marked_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "baselines_pkey" PRIMARY KEY ("kind", "name")
);
CREATE UNIQUE INDEX "baselines_target_id_key" ON "baselines" ("target_id");

CREATE FUNCTION "baselines_unmark_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "baselines" WHERE "kind" = TG_ARGV[0] AND "target_id" = OLD."id";
  RETURN OLD;
END;
$$;
CREATE TRIGGER "runs_unmark_baseline" AFTER DELETE ON "runs" FOR EACH ROW EXECUTE FUNCTION "baselines_unmark_deleted"('run');
CREATE TRIGGER "experiments_unmark_baseline" AFTER DELETE ON "experiments" FOR EACH ROW EXECUTE FUNCTION "baselines_unmark_deleted"('experiment');

-- The baseline of its name when it was created, kept as it was: the verdict never moves when the
-- mark changes later. No foreign key: a deleted baseline leaves the id, and the check says so.
ALTER TABLE "runs" ADD COLUMN "baseline_id" TEXT;
ALTER TABLE "experiments" ADD COLUMN "baseline_id" TEXT;
-- A run's check against its baseline ({ worseBy, p }); null: the defaults. An experiment's is in its definition.
ALTER TABLE "runs" ADD COLUMN "regression" JSONB;

-- The history of a name (GET /history): its runs and experiments by name and time.
CREATE INDEX "runs_name_created_at_idx" ON "runs" ("name", "created_at");
CREATE INDEX "experiments_name_created_at_idx" ON "experiments" ("name", "created_at");
