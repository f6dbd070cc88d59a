import { copyFile, cp } from "node:fs/promises";
import path from "node:path";
import type Docker from "dockerode";
import { ensureBase } from "./base";
import { ensureImage, imageTag, type ImageSpec } from "./build";
import { env } from "./env";
import { readTree } from "./hash";
import { CASSANDRA_JARS, ensureJars, jarArch, jarSetKey, KAFKA_JARS, type JarSet } from "./maven";
import {
  buildK6,
  buildTestbed,
  ensureToxiproxyBinary,
  GO_BUILD_FLAGS,
  K6_VERSION,
  TESTBED_SRC_DIR,
  TOXIPROXY_VERSION,
  XK6_SRC_DIR,
} from "./toolchain";
import type { BuildableImage, EnsureOptions, ImageProgress } from "./types";

export type { BuildableImage, EnsureOptions, ImageName, ImageProgress } from "./types";
export { K6_VERSION, TOXIPROXY_VERSION } from "./toolchain";
export { BASE_ALIAS } from "./base";
export { CASSANDRA_VERSION, KAFKA_VERSION } from "./maven";

export type LabImages = { testbed: string; nginx: string; k6: string; k6Version: string };
export type ControlPlaneImages = { postgres: string; redis: string };

/** The images every run needs: the service under test, its balancer and the load generator. */
export const CORE_LAB_IMAGES = ["testbed", "nginx", "k6"] as const satisfies readonly BuildableImage[];
export const CONTROL_PLANE_IMAGES = ["postgres", "redis"] as const satisfies readonly BuildableImage[];
/**
 * Images a topology may add (the HAProxy balancer, brokers, stores, the network-fault proxy);
 * built when a run uses them.
 */
export const DEPENDENCY_IMAGES = [
  "haproxy",
  "kafka",
  "rabbitmq",
  "cassandra",
  "hotkey-nginx",
  "ruby",
  "memcached",
  "wrk",
  "toxiproxy",
] as const satisfies readonly BuildableImage[];
/** The test Swarm cluster's node (Docker-in-Docker) and registry, built by scripts/swarm.sh. */
export const SWARM_IMAGES = ["swarm-node", "registry"] as const satisfies readonly BuildableImage[];
export const ALL_IMAGES = [...CORE_LAB_IMAGES, ...DEPENDENCY_IMAGES, ...CONTROL_PLANE_IMAGES] as const;

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

// k6 with the lab's output extension: the extension's module (go.mod pins K6_VERSION) is the hash.
const k6 = {
  name: "k6",
  inputs: async () => [
    { path: "k6-version", content: K6_VERSION },
    ...(await readTree(XK6_SRC_DIR, (p) => p.endsWith("_test.go") || p.endsWith(".sh"))),
    { path: "go-build-flags", content: GO_BUILD_FLAGS.join(" ") },
  ],
  stage: async (dir, emit, signal) => {
    emit({ phase: "compiling", message: `go build k6 ${K6_VERSION} with the scalelab output (about 80 s the first time)` });
    await buildK6(path.join(dir, "k6"), signal);
  },
} satisfies ImageSpec;

/** The network-fault proxy, in front of a target only when the run has a network fault on it. */
const toxiproxy = {
  name: "toxiproxy",
  inputs: async () => [{ path: "toxiproxy-version", content: TOXIPROXY_VERSION }],
  stage: async (dir, emit, signal) => {
    const binary = await ensureToxiproxyBinary((message) => emit({ phase: "compiling", message }), signal);
    await copyFile(binary, path.join(dir, "toxiproxy-server"));
  },
} satisfies ImageSpec;

/** A JVM image whose lib/ is the jar set resolved from Maven Central (once, then from the cache dir). */
function jarImage(name: "kafka" | "cassandra", set: JarSet): ImageSpec {
  const arch = jarArch(process.arch);
  return {
    name,
    // The key hashes the generated pom, the plugin and the architecture; Maven is not needed to compute it.
    inputs: async () => [{ path: "jar-set", content: jarSetKey(set, arch) }],
    stage: async (dir, emit, signal) => {
      const jars = await ensureJars(set, {
        cacheDir: env.cacheDir,
        mvn: env.mvnBin,
        // Only an unconfigured `mvn` on a machine we administer is installed for the user.
        installMaven: env.mvnBin === "mvn" && process.getuid?.() === 0,
        arch,
        onMessage: (message) => emit({ phase: "fetching", message }),
        signal,
      });
      await cp(jars, path.join(dir, "lib"), { recursive: true });
    },
  };
}

const SPECS: Record<BuildableImage, ImageSpec> = {
  testbed,
  nginx: { name: "nginx" },
  haproxy: { name: "haproxy" },
  k6,
  kafka: jarImage("kafka", KAFKA_JARS),
  rabbitmq: { name: "rabbitmq" },
  cassandra: jarImage("cassandra", CASSANDRA_JARS),
  postgres: { name: "postgres" },
  redis: { name: "redis" },
  "hotkey-nginx": { name: "hotkey-nginx" },
  ruby: { name: "ruby" },
  memcached: { name: "memcached" },
  wrk: { name: "wrk" },
  toxiproxy,
  "swarm-node": { name: "swarm-node" },
  registry: { name: "registry" },
};

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
    const promise = work({ signal: opts.signal, onProgress: (p) => listeners.forEach((l) => l(p)) }).finally(() => inflight.delete(key));
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

/**
 * Makes sure exactly the named images exist, building what is missing (in the order given, on
 * the shared base); returns their full tags by name. Progress goes to `opts.onProgress`;
 * `opts.signal` stops a build in any step (Maven, Go, the Docker build).
 */
export async function ensureImages<N extends BuildableImage>(
  docker: Docker,
  names: readonly N[],
  opts: EnsureOptions = {},
): Promise<Record<N, string>> {
  const unknown = names.filter((n) => !Object.hasOwn(SPECS, n));
  if (unknown.length) throw new Error(`unknown image ${unknown.join(", ")}; known: ${Object.keys(SPECS).join(", ")}`);
  opts.signal?.throwIfAborted();
  const base = await shared("base", opts, (o) => ensureBase(docker, o));
  const tags = {} as Record<N, string>;
  for (const name of new Set(names)) {
    opts.signal?.throwIfAborted();
    const spec = SPECS[name];
    const tag = await imageTag(spec, base);
    tags[name] = await shared(tag, opts, (o) => ensureImage(docker, spec, tag, base, o));
  }
  return tags;
}

/** Makes sure the images a run needs exist, building what is missing; returns their full tags. */
export async function ensureLabImages(docker: Docker, opts: EnsureOptions = {}): Promise<LabImages> {
  const { testbed: testbedTag, nginx: nginxTag, k6: k6Tag } = await ensureImages(docker, CORE_LAB_IMAGES, opts);
  return { testbed: testbedTag, nginx: nginxTag, k6: k6Tag, k6Version: K6_VERSION };
}

/** Makes sure the control plane's Postgres and Redis images exist; returns their full tags. */
export async function ensureControlPlaneImages(docker: Docker, opts: EnsureOptions = {}): Promise<ControlPlaneImages> {
  return ensureImages(docker, CONTROL_PLANE_IMAGES, opts);
}
