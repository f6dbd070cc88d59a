import { experimentsRouter } from "./experiments";
import { hostRouter } from "./host";
import { presetsRouter } from "./presets";
import { previewRouter } from "./preview";
import { runsRouter } from "./runs";
import { router } from "../trpc";

export const appRouter = router({
  runs: runsRouter,
  experiments: experimentsRouter,
  presets: presetsRouter,
  preview: previewRouter,
  host: hostRouter,
});

export type AppRouter = typeof appRouter;
