import { growth, total } from "../figures";
import { int, LIMITS, num, oneOf, strict } from "../fields";
import { SERVICE_ALIAS } from "../haproxy";
import { APP_PORT } from "../nginx";
import { runtimeThreads } from "./runtime";
import type { ComponentModule } from "./types";
import { downstreamEnv } from "./downstream";
import { storageEnv } from "./storage";

export const LOGGING_MODES = ["none", "async", "blocking"] as const;

/** The service under test (the testbed), its replicas and its runtime model. */
export const ZService = strict("service", {
  replicas: int("service.replicas", LIMITS.replicas).default(1),
  /** CPU limit per replica (fractional, e.g. 0.2); omitted = no CPU limit. */
  cpus: num("service.cpus", LIMITS.cpus).optional(),
  memoryMb: int("service.memoryMb", LIMITS.memoryMb).default(256),
  /**
   * OS threads of the runtime (GOMAXPROCS); 1 behaves like a single-threaded runtime. Omitted = as
   * a container-aware runtime chooses: one per CPU of the limit, rounded up (one per host CPU
   * without a limit).
   */
  threads: int("service.threads", LIMITS.threads).optional(),
  /** Work per request of the `cpu` endpoint: N × JSON-encode a random 10-character string. */
  cpuIterations: int("service.cpuIterations", LIMITS.cpuIterations).default(1000),
  /** At most this many requests are worked on at once per replica; 0 = unbounded. */
  workerPool: int("service.workerPool", LIMITS.workerPool).default(0),
  /** Requests that may wait for a worker; beyond it the replica answers 503. 0 = unbounded. */
  queueLimit: int("service.queueLimit", LIMITS.queueLimit).default(0),
  /** One log line per request: not written, buffered and flushed in the background, or written and flushed by the request. */
  logging: oneOf("service.logging", LOGGING_MODES).default("none"),
  /** What one flush costs on top of the real disk (a slow disk or a remote sink), in ms. */
  logFlushMs: int("service.logFlushMs", LIMITS.logFlushMs).default(0),
});

export const SERVICE_ROLE = "app";
export const STATS_PATH = "/stats";
export const HEALTH_PATH = "/health";

/** Host name of replica i on the run network; nginx's upstreams and X-Backend use it. */
export const replicaHost = (i: number) => `${SERVICE_ROLE}-${i}`;

export const service: ComponentModule = {
  kind: "service",
  images: () => ["testbed"],
  plan: ({ run, container }) => {
    const s = run.topology.service;
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
          TESTBED_CPU_ITERATIONS: String(s.cpuIterations),
          ...runtimeThreads(s.threads, s.cpus),
          TESTBED_WORKER_POOL: String(s.workerPool),
          TESTBED_QUEUE_LIMIT: String(s.queueLimit),
          TESTBED_LOGGING: s.logging,
          TESTBED_LOG_FLUSH_MS: String(s.logFlushMs),
          ...downstreamEnv(run),
          ...storageEnv(run),
        },
        cpus: s.cpus,
        memoryMb: s.memoryMb,
        tier: 1,
        ready: [{ kind: "http", port: APP_PORT, path: HEALTH_PATH }],
        stats: { port: APP_PORT, path: STATS_PATH },
      }),
    );
  },
  figures: (input, run) => {
    const s = run.topology.service;
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
