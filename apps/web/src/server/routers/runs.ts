import { ZContainerSample, ZFigureSample, ZHostSample } from "@scalelab/scenarios/messages";
import { ZRunCreate, ZSample } from "@scalelab/scenarios/contract";
import { z } from "zod";
import { ZCompareInput, ZCompareResult } from "../runs/compare-types";
import { liveRun } from "../runs/live";
import { getHostSamples } from "../runs/host";
import { assertRunExists, cancelRun, compare, createRun, getContainers, getFigures, getRun, getSamples, listRuns } from "../runs/service";
import { ZRunId, ZRunRef, ZRunView } from "../runs/types";
import { exportRun, ZRunExportInput } from "../experiments/export";
import { ZFile } from "../rest/file";
import { procedure, router } from "../trpc";

const tags = ["runs"];

export const runsRouter = router({
  create: procedure
    .meta({
      openapi: { method: "POST", path: "/runs", tags, protect: false, summary: "Create a run and queue it", errorResponses: [400, 503] },
      successStatus: 201,
    })
    .input(ZRunCreate)
    .output(ZRunRef)
    .mutation(({ ctx, input }) => createRun(ctx.deps, input)),

  list: procedure
    .meta({ openapi: { method: "GET", path: "/runs", tags, protect: false, summary: "Runs, newest first", errorResponses: [400] } })
    .input(
      z
        .object({
          // A JSON number, or decimal digits as a query string carries them (`?limit=5`);
          // nothing else is coerced: not "0x10", "1e2", true or [5].
          limit: z
            .union([z.number(), z.string().regex(/^\d{1,9}$/, { error: "limit must be a whole number between 1 and 500" })], {
              error: "limit must be a number",
            })
            .pipe(
              z.coerce
                .number<string | number>()
                .int({ error: "limit must be a whole number between 1 and 500" })
                .min(1, { error: "limit must be between 1 and 500" })
                .max(500, { error: "limit must be between 1 and 500" }),
            )
            .default(100)
            .meta({
              // Documented as what it is in a query string: an integer.
              override: ({ jsonSchema }) => {
                delete jsonSchema.anyOf;
                Object.assign(jsonSchema, { type: "integer", minimum: 1, maximum: 500, default: 100 });
              },
            }),
        })
        .prefault({}),
    )
    .output(z.array(ZRunView))
    .query(({ ctx, input }) => listRuns(ctx.deps, input)),

  get: procedure
    .meta({
      openapi: { method: "GET", path: "/runs/{id}", tags, protect: false, summary: "One run with its summary", errorResponses: [404] },
    })
    .input(ZRunId)
    .output(ZRunView)
    .query(({ ctx, input }) => getRun(ctx.deps, input.id)),

  samples: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/runs/{id}/samples",
        tags,
        protect: false,
        summary: "Per-second buckets of a run",
        errorResponses: [404],
      },
    })
    .input(ZRunId)
    .output(z.array(ZSample))
    .query(({ ctx, input }) => getSamples(ctx.deps, input.id)),

  figures: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/runs/{id}/figures",
        tags,
        protect: false,
        summary: "Per-second figures of a run's components (worker pool, broker lag, downstream)",
        errorResponses: [404],
      },
    })
    .input(ZRunId)
    .output(z.array(ZFigureSample))
    .query(({ ctx, input }) => getFigures(ctx.deps, input.id)),

  containers: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/runs/{id}/containers",
        tags,
        protect: false,
        summary: "Per-second resources of every container of a run: CPU (% of one core) and throttling, memory, network bytes/s in and out",
        errorResponses: [404],
      },
    })
    .input(ZRunId)
    .output(z.array(ZContainerSample))
    .query(({ ctx, input }) => getContainers(ctx.deps, input.id)),

  host: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/runs/{id}/host",
        tags,
        protect: false,
        summary:
          "Per-second CPU of the host during the load (% of one core): all of it (/proc/stat), the run's containers, the worker, and what else used it (null: unknown)",
        errorResponses: [404],
      },
    })
    .input(ZRunId)
    .output(z.array(ZHostSample))
    .query(({ ctx, input }) => getHostSamples(ctx.deps, input.id)),

  export: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/runs/{id}/export",
        tags,
        protect: false,
        summary: "Download a run: ?format=json (the run, its per-second samples, containers and figures) or csv (its per-second samples)",
        errorResponses: [400, 404],
      },
      file: true,
    })
    .input(ZRunExportInput)
    .output(ZFile)
    .query(({ ctx, input }) => exportRun(ctx.deps, input)),

  cancel: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/runs/{id}/cancel",
        tags,
        protect: false,
        summary: "Cancel a queued or running run",
        errorResponses: [404, 409],
      },
    })
    .input(ZRunId)
    .output(ZRunRef)
    .mutation(({ ctx, input }) => cancelRun(ctx.deps, input.id)),

  compare: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/compare",
        tags,
        protect: false,
        summary: "Figures of 2–8 runs side by side with ratios to the first (?ids=a,b)",
        errorResponses: [400, 404],
      },
    })
    .input(ZCompareInput)
    .output(ZCompareResult)
    .query(({ ctx, input }) => compare(ctx.deps, input.ids)),

  /** Server-sent events: the stored state, then live samples and status until the run ends. */
  live: procedure.input(ZRunId).subscription(async ({ ctx, input, signal }) => {
    // Fails the subscription with not_found before any event; liveRun reads the run itself.
    await assertRunExists(ctx.deps, input.id);
    return liveRun(ctx.deps, input.id, signal);
  }),
});
