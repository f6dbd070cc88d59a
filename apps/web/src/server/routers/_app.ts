import { enginesRouter } from "./engines";
import { experimentsRouter } from "./experiments";
import { historyRouter } from "./history";
import { hostRouter } from "./host";
import { imagesRouter } from "./images";
import { presetsRouter } from "./presets";
import { previewRouter } from "./preview";
import { runsRouter } from "./runs";
import { tokensRouter } from "./tokens";
import { router } from "../trpc";

export const appRouter = router({
  runs: runsRouter,
  experiments: experimentsRouter,
  presets: presetsRouter,
  preview: previewRouter,
  host: hostRouter,
  images: imagesRouter,
  history: historyRouter,
  tokens: tokensRouter,
  engines: enginesRouter,
});

export type AppRouter = typeof appRouter;
