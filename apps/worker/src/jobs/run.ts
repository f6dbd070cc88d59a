import { RUN_ID_PATTERN } from "@scalelab/scenarios/plan";
import { RUN_JOB } from "@scalelab/scenarios/channels";
import { z } from "zod";
import type { PipelineDeps } from "../pipeline/context";
import { runPipeline } from "../pipeline";
import { defineJob } from "./define";

export const ZRunJobPayload = z.object({ runId: z.string().regex(RUN_ID_PATTERN) });

/** Job id = run id. A failed run fails the job too, so the queue shows it; a retry would be skipped. */
export const runJob = (deps: PipelineDeps) =>
  defineJob({
    name: RUN_JOB,
    payload: ZRunJobPayload,
    handler: async ({ runId }, { shutdown }) => {
      const outcome = await runPipeline(deps, runId, shutdown);
      if (outcome.status === "failed") throw new Error(outcome.error ?? "run failed");
    },
  });
