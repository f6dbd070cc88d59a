import { ZRunnableImage } from "@scalelab/scenarios/images";
import { z } from "zod";
import { listRunnableImages } from "../images/service";
import { procedure, router } from "../trpc";

// POST /images (an upload of a build context) is not a procedure: server/images/upload.ts.
export const imagesRouter = router({
  list: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/images",
        tags: ["images"],
        protect: false,
        summary: "The images a run can use: the engine's images that are not the lab's own, newest first",
        errorResponses: [503],
      },
    })
    .input(z.object({}).prefault({}))
    .output(z.array(ZRunnableImage))
    .query(({ ctx }) => listRunnableImages(ctx.deps.docker)),
});
