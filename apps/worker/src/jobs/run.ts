import { Queue } from "bullmq";
import { RUN_JOB, RunJobData, ZRunJob } from "@scalelab/scenarios/messages";
import { deleteIfAsked } from "../deletion";
import { retryIfWanted, settleBeforeRun } from "../experiments";
import { errorMessage } from "../log";
import { PipelineDeps } from "../pipeline/context";
import { runPipeline } from "../pipeline";
import { defineJob } from "./define";

/**
 * Job id = run id. A failed run fails the job too, so the queue shows it; a retry of the job would
 * be skipped. A run of an experiment waits the experiment's settle pause first, and one that failed
 * or was interrupted is run again once, as a new run. A run whose delete was asked while the
 * worker held it is deleted once it is torn down.
 */
export const runJob = (deps: PipelineDeps, queue: Queue<RunJobData>) =>
  defineJob({
    name: RUN_JOB,
    payload: ZRunJob,
    handler: async ({ runId }, { shutdown }) => {
      await settleBeforeRun(deps.db, runId, shutdown, deps.log);
      const outcome = await runPipeline(deps, runId, shutdown);
      // Its delete was asked while it ran: gone now that it is torn down, and never retried.
      if (await deleteIfAsked(deps.db, runId, deps.log)) return;
      if (outcome.status === "failed" || outcome.status === "interrupted") {
        await retryIfWanted(deps.db, queue, runId, deps.log).catch((err: unknown) =>
          deps.log.error("could not queue the retry", { runId, error: errorMessage(err) }),
        );
      }
      if (outcome.status === "failed") throw new Error(outcome.error ?? "run failed");
    },
  });
