import { z } from "zod";
import { readHostBounds } from "../runs/service";
import { procedure, router } from "../trpc";

export const hostRouter = router({
  facts: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/host",
        tags: ["host"],
        protect: false,
        summary: "CPU and memory bounds runs are validated against",
        errorResponses: [500],
      },
    })
    .input(z.object({}))
    .output(z.object({ cpus: z.number().int(), memoryBytes: z.number(), source: z.enum(["docker", "web"]) }))
    .query(({ ctx }) => readHostBounds(ctx.deps.redis)),
});
