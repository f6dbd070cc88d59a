import { z } from "zod";
import { listPresets, runPreset, ZPresetRunInput, ZPresetView } from "../experiments/presets";
import { ZExperimentRef } from "../experiments/types";
import { procedure, router } from "../trpc";

const tags = ["presets"];

export const presetsRouter = router({
  list: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/presets",
        tags,
        protect: false,
        summary: "The experiments of the write-ups, each ready to run, with the write-up's figures",
      },
    })
    .input(z.object({}).prefault({}))
    .output(z.array(ZPresetView))
    .query(({ ctx }) => listPresets(ctx.deps)),

  run: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/presets/{name}/run",
        tags,
        protect: false,
        summary: "Start a preset as an experiment, optionally with a patch of its base, other repetitions or settle pause",
        errorResponses: [400, 404, 422, 429, 503],
      },
      successStatus: 201,
    })
    .input(ZPresetRunInput)
    .output(ZExperimentRef)
    .mutation(({ ctx, input }) => runPreset(ctx.deps, input)),
});
