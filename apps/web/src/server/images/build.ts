import { createReadStream } from "node:fs";
import {
  BuildLog,
  LineSplitter,
  parseJsonLine,
  UPLOADED_AT_LABEL,
  USER_IMAGE_LABEL,
  type DockerBuildMessage,
  type TImageBuildEvent,
} from "@scalelab/scenarios/images";
import type Docker from "dockerode";
import { isEngineAnswer } from "./service";

export type BuiltImage = { reference: string; id: string; size: number; created: string };
export type BuildOutcome = { ok: true; image: BuiltImage } | { ok: false; message: string; lastLines: string[] };

export type BuildLimits = {
  /** Memory of each build step's container (`docker build --memory`); swap is not added to it. */
  memoryBytes: number;
  /** CPUs of each build step's container (`--cpu-period/--cpu-quota`). */
  cpus: number;
};

const CPU_PERIOD = 100_000;

/**
 * Builds `reference` from a context file (a tar, gzip-compressed or not) with the engine's
 * builder, as packages/images builds the lab's images: intermediate containers removed even when
 * a step fails, each step's container under `limits`, the image labelled as a user's upload.
 * Every step and output line goes to `onEvent`; a failure of the build itself (a step that
 * fails, a Dockerfile the engine refuses) is an outcome with the last lines, not an exception.
 * `signal` cancels the build (the engine stops it when the connection closes).
 */
export async function buildImage(
  docker: Docker,
  opts: {
    contextFile: string;
    reference: string;
    limits: BuildLimits;
    uploadedAt: Date;
    signal?: AbortSignal;
    onEvent?: (event: TImageBuildEvent) => void;
  },
): Promise<BuildOutcome> {
  const log = new BuildLog();
  const emit = (events: TImageBuildEvent[]) => events.forEach((e) => opts.onEvent?.(e));
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.buildImage(createReadStream(opts.contextFile), {
      t: opts.reference,
      labels: { [USER_IMAGE_LABEL]: "true", [UPLOADED_AT_LABEL]: opts.uploadedAt.toISOString() },
      rm: true,
      forcerm: true,
      memory: opts.limits.memoryBytes,
      memswap: opts.limits.memoryBytes,
      cpuperiod: CPU_PERIOD,
      cpuquota: Math.round(opts.limits.cpus * CPU_PERIOD),
      abortSignal: opts.signal,
    });
  } catch (err) {
    opts.signal?.throwIfAborted();
    if (!isEngineAnswer(err)) throw err;
    const message = (err as { json?: { message?: string } }).json?.message ?? String((err as { message?: unknown }).message);
    emit(log.accept({ error: message }));
    return { ok: false, message: log.failure!, lastLines: log.lastLines() };
  }

  const decoder = new TextDecoder();
  const lines = new LineSplitter();
  const accept = (line: string) => {
    const message = parseJsonLine(line);
    if (message !== null && typeof message === "object") emit(log.accept(message as DockerBuildMessage));
  };
  for await (const chunk of stream) {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    lines.push(text).forEach(accept);
  }
  opts.signal?.throwIfAborted();
  lines.end().forEach(accept);
  emit(log.end());
  if (log.failure !== undefined) return { ok: false, message: log.failure, lastLines: log.lastLines() };

  const image = await docker.getImage(log.imageId ?? opts.reference).inspect();
  return {
    ok: true,
    image: { reference: opts.reference, id: image.Id, size: image.Size, created: new Date(image.Created).toISOString() },
  };
}
