import { z } from "zod";
import { BACKEND_SOURCES, ZBackendStats } from "./backends";
import { ZErrorCounts, ZFaultEffect } from "./faults";
import { ZLatency } from "./latency";
import { LOADGENS } from "./workload";
import { ZThresholdsOutcome } from "./thresholds";

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

/**
 * What a container of the run went through that the run's own fault timeline did not do: stopped,
 * killed or paused from outside (someone's `docker stop`), exited on its own (a crash), killed for
 * lack of memory, or started or unpaused from outside while the timeline held it down
 * (../analysis/interference.ts). Times are seconds from the load's start (negative: before it).
 */
export const INTERFERENCE_ACTIONS = ["stop", "kill", "crash", "oom", "pause", "start", "unpause"] as const;
export type InterferenceAction = (typeof INTERFERENCE_ACTIONS)[number];
export const ZInterference = z.object({
  /** The container's Docker name. */
  container: z.string(),
  /** How the timeline calls it, e.g. "replica app-0". */
  title: z.string(),
  role: z.string(),
  action: z.enum(INTERFERENCE_ACTIONS),
  at: z.number(),
  /** When it was running again (started, unpaused), by anyone; absent: not before the end of the run's watch. */
  until: z.number().optional(),
  /** The container's exit code, for the actions that ended its process. */
  exitCode: z.number().int().optional(),
  oomKilled: z.boolean().optional(),
  /** The signal of an outside kill (9 for `docker kill`, 15 then 9 for a `docker stop` that outlasted its grace). */
  signal: z.number().int().optional(),
});
export type TInterference = z.infer<typeof ZInterference>;
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

/** The host's CPU used outside the run (../analysis/host-noise.ts THostNoise). */
export const ZHostNoise = z.object({
  cores: z.number().int(),
  seconds: z.number().int(),
  /** Seconds in which other work used at least 40 % of the host (HOST_NOISE.busySecondPct). */
  busySeconds: z.number().int(),
  meanPct: z.number(),
  p95Pct: z.number(),
  maxPct: z.number(),
  meanCores: z.number(),
  workerMeanPct: z.number(),
});

export const ZRunSummary = z.object({
  requests: z.number().int(),
  rps: z.number(),
  errors: z.number().int(),
  errorRate: z.number(),
  latencyMs: ZLatency,
  durationSeconds: z.number().optional(),
  /** Requests answered per backend hostname (from the X-Backend header). */
  backends: z.record(z.string(), z.number()).optional(),
  /**
   * Where the per-backend counts came from, when not the replicas' X-Backend (./backends.ts
   * BackendSource): the balancer's header or the connection's address, mapped to replica names;
   * `unknown`: nothing said which replica answered (wrk without a balancer in front of a user's
   * image), so the distribution over the replicas, its imbalance and the faults' shifts are unknown.
   */
  backendSource: z.enum(BACKEND_SOURCES).optional(),
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
       * How the instances' percentiles were merged: "merged" (from the sum of the instances'
       * latency histograms: the percentiles of all their requests within 0.4 %, ../loadgen/histogram.ts),
       * or "worst instance" (the largest of each; an upper bound, exact for max), in runs recorded
       * before the histograms and when an instance gave none. Counts, the mean and max always merge exactly.
       */
      percentiles: z.enum(["merged", "worst instance"]).optional(),
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
      /**
       * Busy workers as the once-a-second reading saw them; null when no reading caught a request in
       * flight while requests were served (short requests between the readings): unknown, not 0.
       */
      maxBusy: z.number().nullable(),
      medianBusy: z.number().nullable(),
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
  /** What happened to the run's containers that its fault timeline did not do (ZInterference); absent when nothing did. */
  interference: z.array(ZInterference).optional(),
  /** The user's k6 script: its checks and its own metrics (workload.script only). */
  script: ZScriptSummary.optional(),
  /** The run's thresholds (./thresholds.ts), evaluated when it succeeded; absent when it has none. */
  thresholds: ZThresholdsOutcome.optional(),
  /**
   * The host's CPU used outside the run's containers and the worker during the load, in % of the host
   * (100 = every core): mean, p95 and max over the seconds, the mean in cores, and the worker's own
   * mean (../analysis/host-noise.ts). Absent in runs recorded before it was, or without a reading.
   */
  hostNoise: ZHostNoise.optional(),
  /**
   * Per node of the engine, when the run ran on several (issue 18): the node's cores, the median CPU
   * of the containers placed on it together (in % of one core) and its host noise from its own host
   * samples. The host findings (saturation, noise) are then per node. Absent on one host.
   */
  nodes: z
    .array(
      z.object({
        node: z.string(),
        cpus: z.number(),
        containers: z.number().int(),
        cpuPct: z.number(),
        hostNoise: ZHostNoise.optional(),
      }),
    )
    .optional(),
  containers: z
    .record(
      z.string(),
      z.object({
        containers: z.number().int(),
        medianCpuPct: z.number(),
        pctOfLimit: z.number().optional(),
        /** Throttled CFS periods per container-second, never more than the periods that elapsed (stats.ts roleUse). */
        throttledPerSecond: z.number(),
        /** Throttled periods over the periods that elapsed (0–1) and the periods per container-second; absent without a CPU limit or in runs recorded before the periods were. */
        throttledShare: z.number().optional(),
        periodsPerSecond: z.number().optional(),
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
/** A node of the engine a run ran on, as the run records it (issue 18). */
export const ZRunNode = z.object({ name: z.string(), cpus: z.number(), memoryBytes: z.number() });
export type TRunNode = z.infer<typeof ZRunNode>;

export const ZHostFacts = z.object({
  cpus: z.number().int(),
  memoryBytes: z.number(),
  kernel: z.string(),
  os: z.string().optional(),
  dockerVersion: z.string(),
  k6Version: z.string().optional(),
  /**
   * A user's image (service.kind image) as the engine had it when the run started: what was
   * measured, whatever the reference points to later. The replicas ran from this id.
   */
  serviceImage: z
    .object({
      reference: z.string(),
      id: z.string(),
      sizeBytes: z.number(),
      /** When it was built (the image's own timestamp). */
      created: z.string().optional(),
    })
    .optional(),
  /** The engine the run ran on ("local" when absent). */
  engine: z.string().optional(),
  /** The engine's nodes with their CPUs and memory, written by the worker when the run ran on an engine other than local. */
  nodes: z.array(ZRunNode).optional(),
  /** The node each of the run's containers ran on: container name → node name (with `nodes`). */
  containerNodes: z.record(z.string(), z.string()).optional(),
  /**
   * The engine's nodes are containers on the lab's own machine (scripts/swarm.sh's test cluster: every
   * node's endpoint is a container of the lab's engine): they share its cores, so no placement can add CPU.
   */
  sharedMachine: z.boolean().optional(),
});
export type THostFacts = z.infer<typeof ZHostFacts>;
