import { requiredImages, LabImage } from "@scalelab/scenarios/plan";
import { errorMessage } from "../log";
import { ImageProgress, RunContext } from "./context";

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

/** Builds (first use) or finds the images this run's components need; Kafka and Cassandra only when used. */
export async function prepareImages({ deps, report, signal, run }: RunContext): Promise<Partial<Record<LabImage, string>>> {
  let lastPhase = "";
  const names = requiredImages(run);
  const images = await deps.prepareImages(deps.docker, names, {
    signal,
    onProgress: (p) => {
      const failed = (err: unknown) => deps.log.warn("could not record image progress", { error: errorMessage(err) });
      report.detail(progressDetail(p)).catch(failed);
      const phase = `${p.image}:${p.phase}`;
      if (phase !== lastPhase && p.phase !== "building") report.event("info", progressDetail(p)).catch(failed);
      lastPhase = phase;
    },
  });
  await report.detail(`images ready: ${names.join(", ")}`);
  return images;
}
