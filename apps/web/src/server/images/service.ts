import { labImageIds, runnableImages, type EngineImage, type TRunnableImage } from "@scalelab/scenarios/images";
import type Docker from "dockerode";
import { AppError } from "../errors";

export const engineUnavailable = (cause: unknown) =>
  new AppError("unavailable", "The Docker engine does not answer; try again when it runs", [], { cause });

/** Whether an error is the engine answering with a status (e.g. 404), not the engine being unreachable. */
export const isEngineAnswer = (err: unknown): err is { statusCode: number } =>
  typeof err === "object" && err !== null && typeof (err as { statusCode?: unknown }).statusCode === "number";

async function engineImages(docker: Docker): Promise<EngineImage[]> {
  try {
    return await docker.listImages();
  } catch (err) {
    if (isEngineAnswer(err)) throw err;
    throw engineUnavailable(err);
  }
}

/** The images a run can use: the engine's images that are not the lab's own, newest first. */
export async function listRunnableImages(docker: Docker): Promise<TRunnableImage[]> {
  return runnableImages(await engineImages(docker));
}

/**
 * Why an upload may not take `reference`, beyond its syntax: it names an image the lab itself runs
 * under another name (the Debian base is also `debian:bookworm-slim`), and re-tagging it would
 * change the base every lab image is built on. Null when it may.
 */
export async function labImageTaken(docker: Docker, reference: string): Promise<string | null> {
  const lab = labImageIds(await engineImages(docker));
  try {
    const { Id } = await docker.getImage(reference).inspect();
    return lab.has(Id) ? `tag ${reference} names an image the lab itself uses; choose another name` : null;
  } catch (err) {
    if (isEngineAnswer(err) && err.statusCode === 404) return null;
    if (isEngineAnswer(err)) throw err;
    throw engineUnavailable(err);
  }
}
