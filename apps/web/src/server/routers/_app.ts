import { hostRouter } from "./host";
import { previewRouter } from "./preview";
import { runsRouter } from "./runs";
import { router } from "../trpc";

export const appRouter = router({
  runs: runsRouter,
  preview: previewRouter,
  host: hostRouter,
});

export type AppRouter = typeof appRouter;
