import { access, mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv, env } from "./env";
import { execTool } from "./exec";

export const K6_VERSION = "v1.4.2";
/** Shopify's toxiproxy, the network-fault proxy: v2.5.0 is the newest the Go module proxy serves. */
export const TOXIPROXY_VERSION = "v2.5.0";
export const TESTBED_SRC_DIR = fileURLToPath(new URL("../../../apps/testbed", import.meta.url));
/**
 * The lab's k6: a Go module requiring go.k6.io/k6 K6_VERSION with the scalelab output extension
 * (mergeable latency histograms on stdout) and the main xk6 would generate, pinned by its go.sum.
 */
export const XK6_SRC_DIR = fileURLToPath(new URL("../xk6-scalelab", import.meta.url));
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
 * Builds the lab's k6 (k6 K6_VERSION with the scalelab output, from XK6_SRC_DIR) into `outFile`:
 * about 80 s cold, seconds once Go's module and build caches hold it.
 */
export async function buildK6(outFile: string, signal?: AbortSignal): Promise<void> {
  await go(["build", ...GO_BUILD_FLAGS, "-o", outFile, "./cmd/k6"], { cwd: XK6_SRC_DIR, signal });
}

/**
 * Returns the path of toxiproxy's server of TOXIPROXY_VERSION, compiled once with `go install`
 * into the cache dir and reused afterwards.
 */
export async function ensureToxiproxyBinary(onCompile: (message: string) => void, signal?: AbortSignal): Promise<string> {
  const pkg = {
    name: "toxiproxy",
    version: TOXIPROXY_VERSION,
    pkg: "github.com/Shopify/toxiproxy/v2/cmd/server",
    binary: "server",
    cold: "up to a minute",
  };
  return ensureGoBinary(pkg, onCompile, signal);
}

type GoBinary = { name: string; version: string; pkg: string; binary: string; cold: string };

/** `go install pkg@version` into <cache>/<name>/<version> (atomically: a half-built dir is never used). */
async function ensureGoBinary(
  { name, version, pkg, binary: file, cold }: GoBinary,
  onCompile: (message: string) => void,
  signal?: AbortSignal,
): Promise<string> {
  const dir = path.join(env.cacheDir, name, version);
  const binary = path.join(dir, file);
  if (
    await access(binary).then(
      () => true,
      () => false,
    )
  )
    return binary;

  onCompile(`go install ${pkg}@${version} (${cold} the first time)`);
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    await go(["install", ...GO_BUILD_FLAGS, `${pkg}@${version}`], { env: { GOBIN: tmp }, signal });
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return binary;
}
