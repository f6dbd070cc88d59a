import { copyFile } from "node:fs/promises";
import path from "node:path";
import type Docker from "dockerode";
import { ensureBase } from "./base";
import { ensureImage, imageTag, type ImageSpec } from "./build";
import { readTree } from "./hash";
import { buildTestbed, ensureK6Binary, GO_BUILD_FLAGS, K6_VERSION, TESTBED_SRC_DIR } from "./toolchain";
import type { EnsureOptions, ImageProgress } from "./types";

export type { EnsureOptions, ImageName, ImageProgress } from "./types";
export { K6_VERSION } from "./toolchain";

export type LabImages = { testbed: string; nginx: string; k6: string; k6Version: string };
export type ControlPlaneImages = { postgres: string; redis: string };

// The Go version is left out of the hash on purpose: finding an existing image must not need Go.
const testbed = {
  name: "testbed",
  inputs: async () => [
    ...(await readTree(TESTBED_SRC_DIR, (p) => p.startsWith("bin/") || p.endsWith("_test.go"))),
    { path: "go-build-flags", content: GO_BUILD_FLAGS.join(" ") },
  ],
  stage: async (dir, emit, signal) => {
    emit({ phase: "compiling", message: "go build apps/testbed" });
    await buildTestbed(path.join(dir, "testbed"), signal);
  },
} satisfies ImageSpec;

const k6 = {
  name: "k6",
  inputs: async () => [{ path: "k6-version", content: K6_VERSION }],
  stage: async (dir, emit, signal) => {
    const binary = await ensureK6Binary((message) => emit({ phase: "compiling", message }), signal);
    await copyFile(binary, path.join(dir, "k6"));
  },
} satisfies ImageSpec;

const nginx = { name: "nginx" } satisfies ImageSpec;
const postgres = { name: "postgres" } satisfies ImageSpec;
const redis = { name: "redis" } satisfies ImageSpec;

type Listener = (p: ImageProgress) => void;
const inflight = new Map<string, { promise: Promise<string>; listeners: Set<Listener> }>();

/**
 * Runs `work` once per key at a time: concurrent callers share the in-flight promise and all
 * receive its progress. The entry is dropped when it settles, so a later call checks again.
 */
async function shared(key: string, opts: EnsureOptions, work: (opts: EnsureOptions) => Promise<string>): Promise<string> {
  let entry = inflight.get(key);
  const joined = entry !== undefined;
  if (!entry) {
    const listeners = new Set<Listener>();
    const promise = work({ signal: opts.signal, onProgress: (p) => listeners.forEach((l) => l(p)) }).finally(() =>
      inflight.delete(key),
    );
    entry = { promise, listeners };
    inflight.set(key, entry);
  }
  const listener = opts.onProgress;
  if (listener) entry.listeners.add(listener);
  try {
    // The caller that started the work waits for it to wind down (its signal aborts it);
    // a caller that joined only stops waiting when its own signal fires.
    return await (joined ? abortable(entry.promise, opts.signal) : entry.promise);
  } finally {
    if (listener) entry.listeners.delete(listener);
  }
}

function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

async function ensureSpecs<N extends ImageSpec["name"]>(
  docker: Docker,
  specs: (ImageSpec & { name: N })[],
  opts: EnsureOptions,
): Promise<Record<N, string>> {
  const base = await shared("base", opts, (o) => ensureBase(docker, o));
  const tags = {} as Record<N, string>;
  for (const spec of specs) {
    opts.signal?.throwIfAborted();
    const tag = await imageTag(spec, base);
    tags[spec.name] = await shared(tag, opts, (o) => ensureImage(docker, spec, tag, base, o));
  }
  return tags;
}

/** Makes sure the images a run needs exist, building what is missing; returns their full tags. */
export async function ensureLabImages(docker: Docker, opts: EnsureOptions = {}): Promise<LabImages> {
  const { testbed: testbedTag, nginx: nginxTag, k6: k6Tag } = await ensureSpecs(docker, [testbed, nginx, k6], opts);
  return { testbed: testbedTag, nginx: nginxTag, k6: k6Tag, k6Version: K6_VERSION };
}

/** Makes sure the control plane's Postgres and Redis images exist; returns their full tags. */
export async function ensureControlPlaneImages(docker: Docker, opts: EnsureOptions = {}): Promise<ControlPlaneImages> {
  return ensureSpecs(docker, [postgres, redis], opts);
}
