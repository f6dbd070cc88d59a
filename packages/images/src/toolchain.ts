import { access, mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv, env } from "./env";
import { execTool } from "./exec";

export const K6_VERSION = "v1.4.2";
export const TESTBED_SRC_DIR = fileURLToPath(new URL("../../../apps/testbed", import.meta.url));
export const GO_BUILD_FLAGS = ["-trimpath", "-ldflags=-s -w"];

async function go(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {}): Promise<string> {
  try {
    return await execTool(env.goBin, args, { ...opts, env: childEnv({ CGO_ENABLED: "0", ...opts.env }) });
  } catch (err) {
    if (/failed to start/.test((err as Error).message)) {
      throw new Error(`the Go toolchain (${env.goBin}) is needed to build lab images; put go on PATH or set SCALELAB_GO`, { cause: err });
    }
    throw err;
  }
}

/** Builds the static testbed binary from apps/testbed into `outFile`. */
export async function buildTestbed(outFile: string, signal?: AbortSignal): Promise<void> {
  await go(["build", ...GO_BUILD_FLAGS, "-o", outFile, "."], { cwd: TESTBED_SRC_DIR, signal });
}

/**
 * Returns the path of the k6 binary of K6_VERSION, compiled once with `go install` into the
 * cache dir (about 80 s cold) and reused afterwards.
 */
export async function ensureK6Binary(onCompile: (message: string) => void, signal?: AbortSignal): Promise<string> {
  const dir = path.join(env.cacheDir, "k6", K6_VERSION);
  const binary = path.join(dir, "k6");
  if (await access(binary).then(() => true, () => false)) return binary;

  onCompile(`go install go.k6.io/k6@${K6_VERSION} (about 80 s the first time)`);
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    await go(["install", ...GO_BUILD_FLAGS, `go.k6.io/k6@${K6_VERSION}`], { env: { GOBIN: tmp }, signal });
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return binary;
}
