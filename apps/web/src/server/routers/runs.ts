import { ZContainerSample, ZFigureSample, ZHostSample } from "@scalelab/scenarios/messages";
import { ZRunCreate, ZSample } from "@scalelab/scenarios/contract";
import { z } from "zod";
import { ZCompareInput, ZCompareResult } from "../runs/compare-types";
import { liveRun, runContainerSeconds } from "../runs/live";
import { getHostSamples } from "../runs/host";
import {
  assertRunExists,
  cancelRun,
  compare,
  createRun,
  deleteRun,
  getContainers,
  getFigures,
  getRun,
  getSamples,
  listRuns,
  rerun,
} from "../runs/service";
import { ZRunListInput } from "../runs/paging";
import { ZContainerSeconds, ZDeleted, ZRunId, ZRunPage, ZRunRef, ZRunView, ZSeriesInput, type TDeleted } from "../runs/types";
import { exportRun, ZRunExportInput } from "../experiments/export";
import { ZFile } from "../rest/file";
import { procedure, router } from "../trpc";
import { markRunBaseline, unmarkRunBaseline } from "../baselines/service";
import { ZBaselineMark } from "../baselines/types";

const tags = ["runs"];

export const runsRouter = router({
  create: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/runs",
        tags,
        protect: false,
        summary: "Create a run and queue it",
        errorResponses: [400, 422, 429, 503],
      },
      successStatus: 201,
    })
    .input(ZRunCreate)
    .output(ZRunRef)
    .mutation(({ ctx, input }) => createRun(ctx.deps, input)),

  list: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/runs",
        tags,
        protect: false,
        summary:
          "Runs, newest first (or ?order=oldest), a page at a time (?cursor= the previous page's nextCursor, with the same order), filtered by status, q (name, or an id's start), experiment (an id, or none), loadgen, from/to (created)",
        errorResponses: [400],
      },
    })
    .input(ZRunListInput)
    .output(ZRunPage)
    .query(({ ctx, input }) => listRuns(ctx.deps, input)),

  delete: procedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/runs/{id}",
        tags,
        protect: false,
        summary:
          "Delete a run with its samples, events and figures; a queued or running one is cancelled first (202 until the worker has removed its containers, then it is deleted)",
        errorResponses: [404],
      },
      accepted: (data) => (data as TDeleted).deleted === false,
    })
    .input(ZRunId)
    .output(ZDeleted)
    .mutation(({ ctx, input }) => deleteRun(ctx.deps, input.id)),

  rerun: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/runs/{id}/rerun",
        tags,
        protect: false,
        summary: "Run the same definition again (name, topology, workload, faults) as a new stand-alone run, queued",
        errorResponses: [400, 404, 409, 422, 429, 503],
      },
      successStatus: 201,
    })
    .input(ZRunId)
    .output(ZRunRef)
    .mutation(({ ctx, input }) => rerun(ctx.deps, input.id)),

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
        summary: "Per-second buckets of a run (?points=N: at most N, min and max per bucket)",
        errorResponses: [400, 404],
      },
    })
    .input(ZSeriesInput)
    .output(z.array(ZSample))
    .query(({ ctx, input }) => getSamples(ctx.deps, input.id, input.points)),

  figures: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/runs/{id}/figures",
        tags,
        protect: false,
        summary: "Per-second figures of a run's components (worker pool, broker lag, downstream; ?points=N: at most N per figure)",
        errorResponses: [400, 404],
      },
    })
    .input(ZSeriesInput)
    .output(z.array(ZFigureSample))
    .query(({ ctx, input }) => getFigures(ctx.deps, input.id, input.points)),

  containers: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/runs/{id}/containers",
        tags,
        protect: false,
        summary:
          "Per-second resources of every container of a run: CPU (% of one core) and throttling, memory, network bytes/s in and out (?points=N: at most N per container)",
        errorResponses: [400, 404],
      },
    })
    .input(ZSeriesInput)
    .output(z.array(ZContainerSample))
    .query(({ ctx, input }) => getContainers(ctx.deps, input.id, input.points)),

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
        summary:
          "2–20 runs side by side (?ids=a,b&baseline=b): ratios to the baseline run, and per figure a verdict of each side (runs of one definition) against the baseline's, with the runs' findings as reasons",
        errorResponses: [400, 404],
      },
    })
    .input(ZCompareInput)
    .output(ZCompareResult)
    .query(({ ctx, input }) => compare(ctx.deps, input.ids, input.baseline)),

  /** The run page's container readings of a finished run, read when its charts come near (the page's snapshot leaves them out). */
  containerSeconds: procedure
    .input(ZRunId)
    .output(z.array(ZContainerSeconds))
    .query(({ ctx, input }) => runContainerSeconds(ctx.deps, input.id)),

  /** Server-sent events: the stored state, then live samples and status until the run ends. */
  live: procedure.input(ZRunId).subscription(async ({ ctx, input, signal }) => {
    // Fails the subscription with not_found before any event; liveRun reads the run itself.
    await assertRunExists(ctx.deps, input.id);
    return liveRun(ctx.deps, input.id, signal);
  }),

  markBaseline: procedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/runs/{id}/baseline",
        tags,
        protect: false,
        summary:
          "Mark a succeeded, named, stand-alone run as the baseline of its name (replacing the one before): later runs of that name are checked against it (their regression)",
        errorResponses: [404, 409, 422],
      },
    })
    .input(ZRunId)
    .output(ZBaselineMark)
    .mutation(({ ctx, input }) => markRunBaseline(ctx.deps, input.id)),

  unmarkBaseline: procedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/runs/{id}/baseline",
        tags,
        protect: false,
        summary: "Unmark the run as the baseline of its name (runs created meanwhile keep their check against it)",
        errorResponses: [404],
      },
    })
    .input(ZRunId)
    .output(ZBaselineMark)
    .mutation(({ ctx, input }) => unmarkRunBaseline(ctx.deps, input.id)),
});
