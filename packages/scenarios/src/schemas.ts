import { z } from "zod";

/**
 * The shared contract of Scalelab: the browser form, tRPC, REST and the worker all parse
 * with these schemas. Field names are part of the public REST API: add, never rename.
 * Bounds that depend on the Docker host (CPU count, memory) are checked separately by
 * `validateAgainstHost` in ./host.ts.
 */

export const LIMITS = {
  replicas: { min: 1, max: 16 },
  cpus: { min: 0.05, max: 64 },
  memoryMb: { min: 32, max: 65536 },
  threads: { min: 1, max: 64 },
  cpuIterations: { min: 1, max: 100_000 },
  vus: { min: 1, max: 1000 },
  arrivalRate: { min: 1, max: 100_000 },
  maxVus: { min: 1, max: 5000 },
  durationSeconds: { min: 5, max: 3600 },
  requestTimeoutMs: { min: 100, max: 60_000 },
  loadgenCpus: { min: 0.1, max: 64 },
  name: { max: 200 },
} as const;

type Range = { min: number; max: number };

const int = (field: string, r: Range) =>
  z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be a whole number between ${r.min} and ${r.max}` })
    .min(r.min, { error: `${field} must be between ${r.min} and ${r.max}` })
    .max(r.max, { error: `${field} must be between ${r.min} and ${r.max}` });

const num = (field: string, r: Range) =>
  z
    .number({ error: `${field} must be a number` })
    .min(r.min, { error: `${field} must be between ${r.min} and ${r.max}` })
    .max(r.max, { error: `${field} must be between ${r.min} and ${r.max}` });

export const BALANCER_KINDS = ["nginx"] as const;
export const BALANCER_ALGORITHMS = ["round_robin", "least_conn"] as const;
export const ENDPOINTS = ["hostname", "cpu"] as const;

export const ZBalancer = z.object({
  kind: z.enum(BALANCER_KINDS, { error: `balancer.kind must be one of: ${BALANCER_KINDS.join(", ")}` }).default("nginx"),
  algorithm: z
    .enum(BALANCER_ALGORITHMS, { error: `balancer.algorithm must be one of: ${BALANCER_ALGORITHMS.join(", ")}` })
    .default("round_robin"),
  /** CPU limit of the balancer container; omitted = unlimited. */
  cpus: num("balancer.cpus", LIMITS.cpus).optional(),
});
export type TBalancer = z.infer<typeof ZBalancer>;

export const ZService = z.object({
  replicas: int("service.replicas", LIMITS.replicas).default(1),
  /** CPU limit per replica (fractional, e.g. 0.2); omitted = no CPU limit. */
  cpus: num("service.cpus", LIMITS.cpus).optional(),
  memoryMb: int("service.memoryMb", LIMITS.memoryMb).default(256),
  /** OS threads of the runtime (GOMAXPROCS); omitted = one per visible CPU. 1 behaves like a single-threaded runtime. */
  threads: int("service.threads", LIMITS.threads).optional(),
  /** Work per request of the `cpu` endpoint: N × JSON-encode a random 10-character string. */
  cpuIterations: int("service.cpuIterations", LIMITS.cpuIterations).default(1000),
});
export type TService = z.infer<typeof ZService>;

export const ZTopology = z.object({
  balancer: ZBalancer.default({ kind: "nginx", algorithm: "round_robin" }),
  service: ZService,
});
export type TTopology = z.infer<typeof ZTopology>;
export type TTopologyInput = z.input<typeof ZTopology>;

/**
 * Closed model: `vus` virtual users loop for `durationSeconds` (k6 constant-vus).
 * Open model: `arrivalRate` requests per second regardless of latency (k6 constant-arrival-rate),
 * with at most `maxVus` in flight. Exactly one of `vus` and `arrivalRate` is given.
 */
export const ZWorkload = z
  .object({
    endpoint: z.enum(ENDPOINTS, { error: `workload.endpoint must be one of: ${ENDPOINTS.join(", ")}` }),
    vus: int("workload.vus", LIMITS.vus).optional(),
    arrivalRate: int("workload.arrivalRate", LIMITS.arrivalRate).optional(),
    maxVus: int("workload.maxVus", LIMITS.maxVus).optional(),
    durationSeconds: int("workload.durationSeconds", LIMITS.durationSeconds).default(30),
    requestTimeoutMs: int("workload.requestTimeoutMs", LIMITS.requestTimeoutMs).default(10_000),
    /** CPU limit of the load-generator container. */
    loadgenCpus: num("workload.loadgenCpus", LIMITS.loadgenCpus).default(1),
  })
  .superRefine((w, ctx) => {
    if (w.vus === undefined && w.arrivalRate === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["vus"],
        message: `give workload.vus (closed model, ${LIMITS.vus.min}–${LIMITS.vus.max}) or workload.arrivalRate (open model, ${LIMITS.arrivalRate.min}–${LIMITS.arrivalRate.max} req/s)`,
      });
    }
    if (w.vus !== undefined && w.arrivalRate !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["arrivalRate"],
        message: "give either workload.vus (closed model) or workload.arrivalRate (open model), not both",
      });
    }
    if (w.maxVus !== undefined && w.arrivalRate === undefined) {
      ctx.addIssue({ code: "custom", path: ["maxVus"], message: "workload.maxVus applies only with workload.arrivalRate (open model)" });
    }
  });
export type TWorkload = z.infer<typeof ZWorkload>;
export type TWorkloadInput = z.input<typeof ZWorkload>;

export const ZRunCreate = z.object({
  name: z
    .string({ error: "name must be a string" })
    .trim()
    .max(LIMITS.name.max, { error: `name must be at most ${LIMITS.name.max} characters` })
    .optional(),
  topology: ZTopology,
  workload: ZWorkload,
});
export type TRunCreate = z.infer<typeof ZRunCreate>;
export type TRunCreateInput = z.input<typeof ZRunCreate>;

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled", "interrupted"] as const;
export const TERMINAL_STATUSES = ["succeeded", "failed", "cancelled", "interrupted"] as const;
export const ZRunStatus = z.enum(RUN_STATUSES);
export type TRunStatus = z.infer<typeof ZRunStatus>;
export const isTerminal = (s: TRunStatus): boolean => (TERMINAL_STATUSES as readonly string[]).includes(s);

/** The pipeline's steps, in order. A run's `step` is the one it is in (or ended in). */
export const RUN_STEPS = [
  "queued",
  "preparing_images",
  "provisioning",
  "waiting_healthy",
  "warmup",
  "running",
  "collecting",
  "tearing_down",
  "done",
] as const;
export const ZRunStep = z.enum(RUN_STEPS);
export type TRunStep = z.infer<typeof ZRunStep>;

export const ZLatency = z.object({
  avg: z.number(),
  p50: z.number(),
  p90: z.number(),
  p95: z.number(),
  p99: z.number(),
  max: z.number(),
});
export type TLatency = z.infer<typeof ZLatency>;

/**
 * One per-second bucket; `t` is whole seconds since the load started. `latencyMs` is null for a
 * second in which no request completed (a stall or an outage), never a fake 0 ms.
 */
export const ZSample = z.object({
  t: z.number().int(),
  requests: z.number().int(),
  errors: z.number().int(),
  latencyMs: ZLatency.nullable(),
  /** Requests answered per backend hostname in this second (from the X-Backend header). */
  backends: z.record(z.string(), z.number()).optional(),
});
export type TSample = z.infer<typeof ZSample>;

export const ZRunSummary = z.object({
  requests: z.number().int(),
  rps: z.number(),
  errors: z.number().int(),
  errorRate: z.number(),
  latencyMs: ZLatency,
  durationSeconds: z.number().optional(),
  /** Requests answered per backend hostname (from the X-Backend header). */
  backends: z.record(z.string(), z.number()).optional(),
  /** Iterations k6 could not start in the open model (load generator or SUT saturated). */
  droppedIterations: z.number().int().optional(),
  /**
   * The load generator's own CPU use: median % of its CPU limit, and whether it was saturated
   * (then the figures are a bound on the load generator, not on the system under test).
   */
  loadgen: z.object({ cpus: z.number(), medianCpuPct: z.number(), saturated: z.boolean() }).optional(),
  /**
   * CPU use per role ("app", "lb", "loadgen") over the run: medians in % of one core and of the
   * CPU limit, and throttled CFS periods per container-second. What explains a result.
   */
  containers: z
    .record(
      z.string(),
      z.object({
        containers: z.number().int(),
        medianCpuPct: z.number(),
        pctOfLimit: z.number().optional(),
        throttledPerSecond: z.number(),
      }),
    )
    .optional(),
});
export type TRunSummary = z.infer<typeof ZRunSummary>;

/** Facts about the machine a run was measured on, recorded with every run. */
export const ZHostFacts = z.object({
  cpus: z.number().int(),
  memoryBytes: z.number(),
  kernel: z.string(),
  os: z.string().optional(),
  dockerVersion: z.string(),
  k6Version: z.string().optional(),
});
export type THostFacts = z.infer<typeof ZHostFacts>;
