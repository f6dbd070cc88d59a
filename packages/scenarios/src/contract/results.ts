import { z } from "zod";
import { ZBackendStats } from "./backends";
import { ZErrorCounts, ZFaultEffect } from "./faults";
import { ZLatency } from "./latency";
import { LOADGENS } from "./workload";

export { ZLatency, type TLatency } from "./latency";

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
  /**
   * max/mean of `backends` over every replica (1 = even, N = all on one; ./fault-effects.ts), added
   * when the samples are read back (REST); absent when nothing was answered or with one replica.
   */
  imbalance: z.number().optional(),
  /**
   * Every request of the second per backend (./backends.ts): requests (failed ones included), errors
   * by kind and the latency of its responses; BALANCER_KEY when the balancer answered itself,
   * NO_ANSWER_KEY for timeouts and connection errors. Absent in runs recorded before it was.
   */
  backendStats: ZBackendStats.optional(),
  /** The second's errors by kind, all backends together. */
  errorKinds: ZErrorCounts.optional(),
});
export type TSample = z.infer<typeof ZSample>;

/** What the user's k6 script reported besides the lab's figures (workload.script). */
export const ZScriptSummary = z.object({
  /** Whether the script's own `options.scenarios` ran (true) or the lab's scenario from workload.vus / arrivalRate (false). */
  ownScenarios: z.boolean(),
  /** Every check by name (a check inside a group is named `group::check`), as k6's end-of-test summary counts it. */
  checks: z.array(z.object({ name: z.string(), passed: z.number().int(), failed: z.number().int() })),
  /**
   * The script's own metrics (Counter, Rate, Trend, Gauge) over the whole run, as k6's web dashboard
   * aggregates them: a counter's count and rate, a gauge's value, a rate's rate, a trend's avg, min,
   * med, max, p(90), p(95), p(99).
   */
  metrics: z.array(
    z.object({
      name: z.string(),
      type: z.enum(["counter", "gauge", "rate", "trend"]),
      /** "time" for milliseconds (a Trend made with isTime), "data" for bytes; absent for plain numbers. */
      contains: z.enum(["time", "data"]).optional(),
      values: z.record(z.string(), z.number()),
    }),
  ),
});
export type TScriptSummary = z.infer<typeof ZScriptSummary>;

export const ZRunSummary = z.object({
  requests: z.number().int(),
  rps: z.number(),
  errors: z.number().int(),
  errorRate: z.number(),
  latencyMs: ZLatency,
  durationSeconds: z.number().optional(),
  /** Requests answered per backend hostname (from the X-Backend header). */
  backends: z.record(z.string(), z.number()).optional(),
  /** The run's errors by kind, all backends together. */
  errorKinds: ZErrorCounts.optional(),
  /** The whole run per backend, as the samples' backendStats (./backends.ts): requests, errors by kind, latency. */
  backendStats: ZBackendStats.optional(),
  /** Iterations k6 could not start in the open model (load generator or SUT saturated). */
  droppedIterations: z.number().int().optional(),
  /**
   * The load generator's own CPU use: median % of its CPU limit, and whether it was saturated
   * (then the figures are a bound on the load generator, not on the system under test). Both are
   * absent when Docker delivered no CPU reading of it (a starved engine): then it is unknown, and
   * the run's timeline says so.
   */
  loadgen: z
    .object({
      cpus: z.number(),
      medianCpuPct: z.number().optional(),
      saturated: z.boolean().optional(),
      /** Which generator, and how many containers shared the load (absent in runs before they were recorded). */
      tool: z.enum(LOADGENS).optional(),
      instances: z.number().int().optional(),
      /**
       * How the instances' percentiles were merged: "worst instance" (the largest of each; an upper
       * bound, exact for max). Counts and the mean always add up exactly.
       */
      percentiles: z.literal("worst instance").optional(),
    })
    .optional(),
  /**
   * CPU use per role ("app", "lb", "loadgen") over the run: medians in % of one core and of the
   * CPU limit, and throttled CFS periods per container-second. What explains a result.
   */
  /** The service's worker pools over the load (busy workers, queue), when it has figures. */
  pool: z
    .object({
      size: z.number(),
      maxBusy: z.number(),
      medianBusy: z.number(),
      maxQueued: z.number(),
      medianQueued: z.number(),
      rejected: z.number(),
    })
    .optional(),
  /**
   * The broker of an async topology: events produced from the load's start and consumed from then
   * on, the backlog already waiting at the start, the largest consumer lag, the lag when the load
   * ended, and the seconds the consumers took to catch up after it (null: not within the drain window).
   */
  broker: z
    .object({
      produced: z.number(),
      consumed: z.number(),
      /** Events already waiting when the load started (the warm-up's); absent in runs before it was recorded. */
      backlogAtStart: z.number().optional(),
      maxLag: z.number(),
      lagAtEnd: z.number(),
      drainSeconds: z.number().nullable(),
    })
    .optional(),
  /**
   * How unevenly the replicas shared the answered requests: max / mean over every replica (1 = even,
   * N = all on one; ./fault-effects.ts), over the whole run and the median of its seconds.
   */
  imbalance: z.object({ method: z.literal("max/mean"), run: z.number(), medianPerSecond: z.number() }).optional(),
  /** What each fault of the timeline did to the load (./faults.ts). */
  faults: z.array(ZFaultEffect).optional(),
  /** The user's k6 script: its checks and its own metrics (workload.script only). */
  script: ZScriptSummary.optional(),
  containers: z
    .record(
      z.string(),
      z.object({
        containers: z.number().int(),
        medianCpuPct: z.number(),
        pctOfLimit: z.number().optional(),
        throttledPerSecond: z.number(),
        // Absent in runs recorded before they were (stats.ts roleUse).
        throttledMsPerSecond: z.number().optional(),
        maxMemBytes: z.number().optional(),
        medianNetRxBps: z.number().optional(),
        medianNetTxBps: z.number().optional(),
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
