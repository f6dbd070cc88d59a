import { cp, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type Docker from "dockerode";
import tar from "tar-fs";
import { followStream, imageExists } from "./docker-stream";
import { contextHash, readTree, type HashedFile } from "./hash";
import { parseBuildStep } from "./progress";
import type { BuildableImage, EnsureOptions, ImageProgress } from "./types";

export const CONTEXTS_DIR = fileURLToPath(new URL("../contexts", import.meta.url));
const STAGING_DIR = fileURLToPath(new URL("../.build", import.meta.url));
export const IMAGE_LABELS = { "scalelab.image": "true" };

export type ImageSpec = {
  name: BuildableImage;
  /** Inputs that are not files of the context dir but decide its content (sources, versions). */
  inputs?: () => Promise<HashedFile[]>;
  /** Puts generated files (binaries) into the staged context; runs only when the image is missing. */
  stage?: (dir: string, emit: (p: Omit<ImageProgress, "image">) => void, signal?: AbortSignal) => Promise<void>;
};

export async function imageTag(spec: ImageSpec, parentTag: string): Promise<string> {
  const files = await readTree(path.join(CONTEXTS_DIR, spec.name));
  const inputs = (await spec.inputs?.()) ?? [];
  const hash = contextHash([...files, ...inputs.map((f) => ({ ...f, path: `inputs/${f.path}` }))], parentTag);
  return `scalelab/${spec.name}:${hash}`;
}

/** Builds `tag` from the spec's context on top of `parentTag` unless it already exists. */
export async function ensureImage(
  docker: Docker,
  spec: ImageSpec,
  tag: string,
  parentTag: string,
  opts: EnsureOptions = {},
): Promise<string> {
  const emit = (p: Omit<ImageProgress, "image">) => opts.onProgress?.({ image: spec.name, ...p });
  if (await imageExists(docker, tag)) {
    emit({ phase: "cached", message: tag });
    return tag;
  }
  const started = Date.now();
  const dir = path.join(STAGING_DIR, `${spec.name}-${tag.split(":")[1]}-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    await cp(path.join(CONTEXTS_DIR, spec.name), dir, { recursive: true });
    await spec.stage?.(dir, emit, opts.signal);
    emit({ phase: "building", message: `building ${tag}` });
    await buildContext(docker, dir, tag, parentTag, emit, opts.signal);
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw new Error(`building ${tag} failed: ${(err as Error).message}`, { cause: err });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  emit({ phase: "done", message: `${tag} in ${((Date.now() - started) / 1000).toFixed(1)} s` });
  return tag;
}

async function buildContext(
  docker: Docker,
  dir: string,
  tag: string,
  parentTag: string,
  emit: (p: Omit<ImageProgress, "image">) => void,
  signal?: AbortSignal,
): Promise<void> {
  const tail: string[] = [];
  const stream = await docker.buildImage(tar.pack(dir), {
    t: tag,
    labels: IMAGE_LABELS,
    buildargs: { BASE_IMAGE: parentTag },
    rm: true,
    forcerm: true,
    abortSignal: signal,
  });
  try {
    await followStream(docker, stream, (event) => {
      for (const line of (event.stream ?? "").replace(/\x1b\[[0-9;]*m/g, "").split("\n")) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 15) tail.shift();
        const step = parseBuildStep(line);
        if (step) emit({ phase: "building", step: step.step, totalSteps: step.totalSteps, message: step.instruction });
      }
    });
  } catch (err) {
    const output = tail.length ? `\n${tail.join("\n")}` : "";
    throw new Error(`${(err as Error).message}${output}`);
  }
  if (!(await imageExists(docker, tag))) throw new Error(`the build finished but ${tag} does not exist`);
}
