import { errorMessage } from "../log";
import type { ImageProgress, LabImages, RunContext } from "./context";

export function progressDetail(p: ImageProgress): string {
  const name = `scalelab/${p.image}`;
  switch (p.phase) {
    case "cached":
      return `${name} is up to date`;
    case "building":
      return p.step && p.totalSteps ? `building ${name} (step ${p.step}/${p.totalSteps})` : `building ${name}`;
    case "done":
      return `${name} built`;
    default:
      return `${p.phase} ${name}`;
  }
}

export async function prepareImages({ deps, report, signal }: RunContext): Promise<LabImages> {
  let lastPhase = "";
  const images = await deps.prepareImages(deps.docker, {
    signal,
    onProgress: (p) => {
      const failed = (err: unknown) => deps.log.warn("could not record image progress", { error: errorMessage(err) });
      report.detail(progressDetail(p)).catch(failed);
      const phase = `${p.image}:${p.phase}`;
      if (phase !== lastPhase && p.phase !== "building") report.event("info", progressDetail(p)).catch(failed);
      lastPhase = phase;
    },
  });
  await report.detail(`images ready (k6 ${images.k6Version})`);
  return images;
}
