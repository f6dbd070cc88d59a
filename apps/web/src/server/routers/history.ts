import { history } from "../baselines/service";
import { ZHistory, ZHistoryInput } from "../baselines/types";
import { procedure, router } from "../trpc";

export const historyRouter = router({
  get: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/history",
        tags: ["history"],
        protect: false,
        summary:
          "The runs (kind=run, stand-alone ones) or experiments (kind=experiment) of a name over time, oldest first: req/s and p95 (per variant for experiments), the baseline marked, each one's regression verdict",
        errorResponses: [400],
      },
    })
    .input(ZHistoryInput)
    .output(ZHistory)
    .query(({ ctx, input }) => history(ctx.deps, input)),
});
