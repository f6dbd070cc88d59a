import { z } from "zod";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";

export const LOGGING_MODES = ["none", "async", "blocking"] as const;

/** Experiment 7's servers (./hotkey.ts): each answers `GET /key` with the hot key from its store. */
export const HOT_KEY_KINDS = ["nginx_static", "nginx_lua", "rack", "rack_trivial", "rails", "memcached"] as const;
export type HotKeyKind = (typeof HOT_KEY_KINDS)[number];

/**
 * What serves the requests (`kind`): the testbed (every endpoint and runtime knob), or one of
 * experiment 7's servers, each answering `GET /key` with the hot key from a Redis container
 * (memcached: from a memcached container through nginx's memcached_pass); see ./hotkey.ts.
 */
export const SERVICE_KINDS = ["testbed", ...HOT_KEY_KINDS] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

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

export type TService = z.infer<typeof ZService>;
