import { growth, total } from "../figures";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";
import { SERVICE_ALIAS } from "../haproxy/haproxy-cfg";
import { GRPC_PORT } from "./grpc";
import { APP_PORT } from "../nginx/nginx-conf";
import { runtimeThreads } from "./runtime";
import { HOT_KEY_STACK, hotKeyServer, SERVICE_KINDS, type HotKeyKind, type ServiceKind } from "./hotkey";
import type { ComponentModule, PlanContext, PlannedContainer } from "../types";
import { downstreamEnv } from "../downstream";
import { storageEnv } from "../storage";
import { cacheEnv } from "../cache";

export const LOGGING_MODES = ["none", "async", "blocking"] as const;

/**
 * What serves the requests (`kind`): the testbed (every endpoint and runtime knob), or one of
 * experiment 7's servers, each answering `GET /key` with the hot key from a Redis container
 * (memcached: from a memcached container through nginx's memcached_pass); see ../hotkey.ts.
 */
export { SERVICE_KINDS, type ServiceKind };

/** The knobs of the testbed's runtime model, with their defaults: the other kinds refuse a value that differs. */
export const TESTBED_KNOBS = { cpuIterations: 1000, workerPool: 0, queueLimit: 0, logging: "none", logFlushMs: 0 } as const;

/** The service under test, its replicas and (for the testbed) its runtime model. */
export const ZService = strict("service", {
  kind: oneOf("service.kind", SERVICE_KINDS).default("testbed"),
  replicas: int("service.replicas", LIMITS.replicas).default(1),
  /** CPU limit per replica (fractional, e.g. 0.2); omitted = no CPU limit. */
  cpus: num("service.cpus", LIMITS.cpus).optional(),
  memoryMb: int("service.memoryMb", LIMITS.memoryMb).default(256),
  /**
   * OS threads of the runtime (GOMAXPROCS; for the hot-key servers nginx's worker processes or
   * Puma's processes); 1 behaves like a single-threaded runtime. Omitted = as a container-aware
   * runtime chooses: one per CPU of the limit, rounded up (one per host CPU without a limit).
   */
  threads: int("service.threads", LIMITS.threads).optional(),
  /** Work per request of the `cpu` endpoint: N × JSON-encode a random 10-character string. */
  cpuIterations: int("service.cpuIterations", LIMITS.cpuIterations).default(TESTBED_KNOBS.cpuIterations),
  /** At most this many requests are worked on at once per replica; 0 = unbounded. */
  workerPool: int("service.workerPool", LIMITS.workerPool).default(TESTBED_KNOBS.workerPool),
  /** Requests that may wait for a worker; beyond it the replica answers 503. 0 = unbounded. */
  queueLimit: int("service.queueLimit", LIMITS.queueLimit).default(TESTBED_KNOBS.queueLimit),
  /** One log line per request: not written, buffered and flushed in the background, or written and flushed by the request. */
  logging: oneOf("service.logging", LOGGING_MODES).default(TESTBED_KNOBS.logging),
  /** What one flush costs on top of the real disk (a slow disk or a remote sink), in ms. */
  logFlushMs: int("service.logFlushMs", LIMITS.logFlushMs).default(TESTBED_KNOBS.logFlushMs),
}).superRefine((s, ctx) => {
  if (s.kind === "testbed") return;
  for (const [key, standard] of Object.entries(TESTBED_KNOBS)) {
    if (s[key as keyof typeof TESTBED_KNOBS] !== standard) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `service.${key} applies only to kind testbed (the ${s.kind} server has no such knob)`,
      });
    }
  }
});

export const SERVICE_ROLE = "app";
export const STATS_PATH = "/stats";
export const HEALTH_PATH = "/health";

/** Host name of replica i on the run network; nginx's upstreams and X-Backend use it. */
export const replicaHost = (i: number) => `${SERVICE_ROLE}-${i}`;

export const service: ComponentModule = {
  kind: "service",
  images: (run) => [run.topology.service.kind === "testbed" ? "testbed" : HOT_KEY_STACK[run.topology.service.kind].image],
  plan: (ctx) => {
    const { run, container } = ctx;
    const s = run.topology.service;
    if (s.kind !== "testbed") return planHotKeyReplicas(ctx, s.kind);
    return Array.from({ length: s.replicas }, (_, i) =>
      container({
        index: i,
        role: SERVICE_ROLE,
        component: "service",
        title: `replica ${replicaHost(i)}`,
        image: "testbed",
        hostname: replicaHost(i),
        // `app` is shared by every replica: HAProxy's server-template and the balancer-less runs resolve it to all of them.
        aliases: [replicaHost(i), SERVICE_ALIAS],
        env: {
          TESTBED_ROLE: "service",
          TESTBED_PORT: String(APP_PORT),
          TESTBED_GRPC_PORT: String(GRPC_PORT),
          TESTBED_CPU_ITERATIONS: String(s.cpuIterations),
          ...runtimeThreads(s.threads, s.cpus),
          TESTBED_WORKER_POOL: String(s.workerPool),
          TESTBED_QUEUE_LIMIT: String(s.queueLimit),
          TESTBED_LOGGING: s.logging,
          TESTBED_LOG_FLUSH_MS: String(s.logFlushMs),
          ...downstreamEnv(run),
          ...storageEnv(run),
          ...cacheEnv(run),
        },
        cpus: s.cpus,
        memoryMb: s.memoryMb,
        ports: [APP_PORT, GRPC_PORT],
        tier: 1,
        ready: [{ kind: "http", port: APP_PORT, path: HEALTH_PATH }],
        stats: { port: APP_PORT, path: STATS_PATH },
      }),
    );
  },
  figures: (input, run) => {
    const s = run.topology.service;
    // The hot-key servers have no figures endpoint.
    if (s.kind !== "testbed") return {};
    const out: Record<string, number> = {};
    // Busy = requests in flight even without a pool: what shows a starving replica.
    out["pool.size"] = s.workerPool * s.replicas;
    out["pool.busy"] = total(input.current, SERVICE_ROLE, (x) => x.pool.busy);
    out["pool.queued"] = total(input.current, SERVICE_ROLE, (x) => x.pool.queued);
    out["pool.rejected"] = growth(input, SERVICE_ROLE, (x) => x.pool.rejected);
    if (s.logging === "async") out["log.dropped"] = growth(input, SERVICE_ROLE, (x) => x.log.dropped);
    if (run.topology.downstream.mode !== "none") {
      out["downstream.sent"] = growth(input, SERVICE_ROLE, (x) => x.downstream.sent);
      out["downstream.errors"] = growth(input, SERVICE_ROLE, (x) => x.downstream.errors);
    }
    return out;
  },
};

/** Replicas of one of experiment 7's servers: the same names, aliases, limits and tier as the testbed's. */
function planHotKeyReplicas({ run, container }: PlanContext, kind: HotKeyKind): PlannedContainer[] {
  const s = run.topology.service;
  const server = hotKeyServer(kind, { workers: s.threads ?? (s.cpus === undefined ? "auto" : Math.ceil(s.cpus)) });
  return Array.from({ length: s.replicas }, (_, i) =>
    container({
      index: i,
      role: SERVICE_ROLE,
      component: "service",
      title: `replica ${replicaHost(i)} (${kind})`,
      image: server.image,
      hostname: replicaHost(i),
      aliases: [replicaHost(i), SERVICE_ALIAS],
      env: server.env,
      ...(server.cmd && { cmd: server.cmd }),
      files: server.files,
      cpus: s.cpus,
      memoryMb: s.memoryMb,
      ports: [APP_PORT],
      tier: 1,
      ready: server.ready,
    }),
  );
}
