import { z } from "zod";
import { ZEngineView } from "@scalelab/scenarios/contract";
import { engineViews } from "../engines/service";
import { procedure, router } from "../trpc";

export const enginesRouter = router({
  list: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/engines",
        tags: ["engines"],
        protect: false,
        summary:
          "The engines a run can name (`engine`): local, the lab's own Docker engine, and each Docker Swarm cluster added on the lab's host (lab engine add), with its nodes read live; one that does not answer is listed unreachable with the reason",
        errorResponses: [500],
      },
    })
    .input(z.object({}).prefault({}))
    .output(z.array(ZEngineView))
    .query(({ ctx }) => engineViews(ctx.deps)),
});
