import { ZExperimentCreate } from "@scalelab/scenarios/experiments";
import {
  cancelExperiment,
  createExperiment,
  deleteExperiment,
  getExperiment,
  listExperiments,
  previewExperiment,
} from "../experiments/service";
import { ZExperimentId, ZExperimentPage, ZExperimentPreview, ZExperimentRef, ZExperimentView } from "../experiments/types";
import { ZExperimentListInput } from "../runs/paging";
import { ZDeleted, type TDeleted } from "../runs/types";
import { exportExperiment, ZExperimentExportInput } from "../experiments/export";
import { ZFile } from "../rest/file";
import { procedure, router } from "../trpc";
import { markExperimentBaseline, unmarkExperimentBaseline } from "../baselines/service";
import { ZBaselineMark } from "../baselines/types";

const tags = ["experiments"];

export const experimentsRouter = router({
  create: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/experiments",
        tags,
        protect: false,
        summary: "Create an experiment (variants and/or sweep axes × repetitions, interleaved) and queue its runs",
        errorResponses: [400, 422, 429, 503],
      },
      successStatus: 201,
    })
    .input(ZExperimentCreate)
    .output(ZExperimentRef)
    .mutation(({ ctx, input }) => createExperiment(ctx.deps, input)),

  preview: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/experiments/preview",
        tags,
        protect: false,
        summary: "Validate an experiment and list its variants, run count, estimated duration and warnings without creating it",
        errorResponses: [400, 422, 503],
      },
    })
    .input(ZExperimentCreate)
    .output(ZExperimentPreview)
    .mutation(({ ctx, input }) => previewExperiment(ctx.deps, input)),

  list: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/experiments",
        tags,
        protect: false,
        summary:
          "Experiments, newest first (or ?order=oldest), a page at a time (?cursor= the previous page's nextCursor, with the same order), with q (name, or an id's start) and from/to (created)",
        errorResponses: [400],
      },
    })
    .input(ZExperimentListInput)
    .output(ZExperimentPage)
    .query(({ ctx, input }) => listExperiments(ctx.deps, input)),

  delete: procedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/experiments/{id}",
        tags,
        protect: false,
        summary:
          "Delete an experiment with its runs, their samples, events and figures; what is left is cancelled first (202 while the worker removes a running run's containers)",
        errorResponses: [404],
      },
      accepted: (data) => (data as TDeleted).deleted === false,
    })
    .input(ZExperimentId)
    .output(ZDeleted)
    .mutation(({ ctx, input }) => deleteExperiment(ctx.deps, input.id)),

  get: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/experiments/{id}",
        tags,
        protect: false,
        summary: "An experiment: status, progress, variants with their runs and statistics, comparisons, findings, USL fit",
        errorResponses: [404],
      },
    })
    .input(ZExperimentId)
    .output(ZExperimentView)
    .query(({ ctx, input }) => getExperiment(ctx.deps, input.id)),

  export: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/experiments/{id}/export",
        tags,
        protect: false,
        summary:
          "Download an experiment: ?format=json (everything, per-second samples included), csv (&table=runs: one row per run; samples: one per second) or html (a self-contained report with its charts)",
        errorResponses: [400, 404],
      },
      file: true,
    })
    .input(ZExperimentExportInput)
    .output(ZFile)
    .query(({ ctx, input }) => exportExperiment(ctx.deps, input)),

  cancel: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/experiments/{id}/cancel",
        tags,
        protect: false,
        summary: "Cancel the runs an experiment has left",
        errorResponses: [404],
      },
    })
    .input(ZExperimentId)
    .output(ZExperimentRef)
    .mutation(({ ctx, input }) => cancelExperiment(ctx.deps, input.id)),

  markBaseline: procedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/experiments/{id}/baseline",
        tags,
        protect: false,
        summary:
          "Mark an experiment whose runs all succeeded as the baseline of its name (replacing the one before): later experiments of that name are checked against it, variant by variant (their regression)",
        errorResponses: [404, 409],
      },
    })
    .input(ZExperimentId)
    .output(ZBaselineMark)
    .mutation(({ ctx, input }) => markExperimentBaseline(ctx.deps, input.id)),

  unmarkBaseline: procedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/experiments/{id}/baseline",
        tags,
        protect: false,
        summary: "Unmark the experiment as the baseline of its name (experiments created meanwhile keep their check against it)",
        errorResponses: [404],
      },
    })
    .input(ZExperimentId)
    .output(ZBaselineMark)
    .mutation(({ ctx, input }) => unmarkExperimentBaseline(ctx.deps, input.id)),
});
