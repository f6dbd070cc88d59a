import { imageService } from "@scalelab/scenarios/components";
import { THostFacts } from "@scalelab/scenarios/contract";
import { requiredImages, LabImage } from "@scalelab/scenarios/plan";
import { errorMessage } from "../log";
import { ImageProgress, RunContext } from "./context";
import { dockerMessage } from "./provision";

export type ServiceImage = NonNullable<THostFacts["serviceImage"]>;

/** What a run that names an image nobody built is told, with the two ways to get it there. */
export const missingImageMessage = (ref: string): string =>
  `service.image ${ref} is not on the lab's engine: build it with docker build -t ${ref} <directory> or upload its build context (POST /api/v1/images)`;

/**
 * A user's image (service.kind image) as the engine has it now: its id (the replicas run from it,
 * so a tag moved during the run changes nothing) and size. A missing image fails the run here,
 * before anything is built or created: the lab never pulls.
 */
export async function inspectServiceImage({ deps, run }: RunContext): Promise<ServiceImage | undefined> {
  const image = imageService(run.topology.service);
  if (!image) return undefined;
  let info;
  try {
    info = await deps.docker.getImage(image.image).inspect();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) throw new Error(missingImageMessage(image.image));
    throw new Error(`could not inspect service.image ${image.image} on the lab's engine: ${dockerMessage(err)}`);
  }
  return { reference: image.image, id: info.Id, sizeBytes: info.Size, ...(info.Created && { created: info.Created }) };
}

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

/**
 * Finds a user's image, then builds (first use) or finds the images this run's components need;
 * Kafka and Cassandra only when used.
 */
export async function prepareImages(
  ctx: RunContext,
): Promise<{ images: Partial<Record<LabImage, string>>; serviceImage: ServiceImage | undefined }> {
  const { deps, report, signal, run } = ctx;
  const serviceImage = await inspectServiceImage(ctx);
  if (serviceImage) {
    const id = serviceImage.id.replace(/^sha256:/, "").slice(0, 12);
    await report.event("info", `service image ${serviceImage.reference}: ${id}, ${Math.round(serviceImage.sizeBytes / 1e6)} MB`);
  }
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
  await report.detail(`images ready: ${[...(serviceImage ? [serviceImage.reference] : []), ...names].join(", ")}`);
  return { images, serviceImage };
}
