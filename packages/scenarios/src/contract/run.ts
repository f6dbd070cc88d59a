import { z } from "zod";
import { ZBalancer } from "../components/balancer";
import { ZBroker } from "../components/kafka";
import { ZDownstream } from "../components/downstream";
import { ZService } from "../components/service";
import { ZStorage } from "../components/storage";
import { int, LIMITS, num, oneOf, strict, text } from "./fields";
import { ZBackendStats } from "./backends";
import { faultIssues, ZErrorCounts, ZFaultEffect, ZFaults } from "./faults";
import { ZLatency } from "./latency";
import { faultableRoles } from "../plan/plan";

/**
 * The shared contract of Scalelab: the browser form, tRPC, REST and the worker all parse
 * with these schemas. Field names are part of the public REST API: add, never rename.
 * Bounds that depend on the Docker host (CPU count, memory) are checked separately by
 * `validateAgainstHost` in ./host.ts.
 */

export { LIMITS } from "./fields";
export {
  BALANCER_ALGORITHMS,
  BALANCER_KINDS,
  HAPROXY_ALGORITHMS,
  NGINX_ALGORITHMS,
  ZBalancer,
  balancerLabel,
  balancerSettings,
} from "../components/balancer";
export { LOGGING_MODES, ZService } from "../components/service";
export { DOWNSTREAM_MODES, ZDownstream } from "../components/downstream";
export { BROKER_KINDS, ZBroker } from "../components/kafka";
export { STORAGE_KINDS, ZStorage } from "../components/storage";

export const ENDPOINTS = ["hostname", "cpu", "products", "activity", "key"] as const;
/** Endpoints that read or write the store. */
export const STORAGE_ENDPOINTS: readonly (typeof ENDPOINTS)[number][] = ["products", "activity"];

export type TBalancer = z.infer<typeof ZBalancer>;
export type TService = z.infer<typeof ZService>;
export type TDownstream = z.infer<typeof ZDownstream>;
export type TBroker = z.infer<typeof ZBroker>;
export type TStorage = z.infer<typeof ZStorage>;

/**
 * A topology is a set of components: the balancer, the service, what the service hands its work
 * to (downstream, through a broker when async) and the store behind it. Cross-component rules
 * (an endpoint that needs a store, a broker without async work) are checked in ZRunCreate.
 */
export const ZTopology = strict("topology", {
  balancer: ZBalancer.prefault({}),
  service: ZService,
  downstream: ZDownstream.prefault({}),
  broker: ZBroker.optional(),
  storage: ZStorage.prefault({}),
});
export type TTopology = z.infer<typeof ZTopology>;
export type TTopologyInput = z.input<typeof ZTopology>;

export const LOADGENS = ["k6", "wrk"] as const;
export const PROTOCOLS = ["http", "grpc"] as const;

/**
 * The load. With k6 (the default): the closed model, `vus` virtual users looping for
 * `durationSeconds` (constant-vus), or the open model, `arrivalRate` requests per second whatever
 * the latency (constant-arrival-rate) with at most `maxVus` in flight; exactly one of the two.
 * With wrk: `connections` kept busy by `threads` (a closed model only: wrk has no arrival rate).
 * `loadgenInstances` containers share the load (VUs, rate or connections split evenly), each with
 * `loadgenCpus`, and their figures merge into one series.
 */
export const ZWorkload = strict("workload", {
  /** Omitted = hostname (the one call the gRPC service has). */
  endpoint: oneOf("workload.endpoint", ENDPOINTS).default("hostname"),
  loadgen: oneOf("workload.loadgen", LOADGENS).default("k6"),
  protocol: oneOf("workload.protocol", PROTOCOLS).default("http"),
  vus: int("workload.vus", LIMITS.vus).optional(),
  arrivalRate: int("workload.arrivalRate", LIMITS.arrivalRate).optional(),
  maxVus: int("workload.maxVus", LIMITS.maxVus).optional(),
  /** wrk: open connections, all instances together. */
  connections: int("workload.connections", LIMITS.connections).optional(),
  /** wrk: threads per instance; omitted = one per CPU of loadgenCpus (rounded up), at most one per connection. */
  threads: int("workload.threads", LIMITS.loadgenThreads).optional(),
  durationSeconds: int("workload.durationSeconds", LIMITS.durationSeconds).default(30),
  requestTimeoutMs: int("workload.requestTimeoutMs", LIMITS.requestTimeoutMs).default(10_000),
  /** CPU limit of each load-generator container. */
  loadgenCpus: num("workload.loadgenCpus", LIMITS.loadgenCpus).default(1),
  loadgenInstances: int("workload.loadgenInstances", LIMITS.loadgenInstances).default(1),
}).superRefine((w, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  const n = w.loadgenInstances;
  if (w.loadgen === "wrk") {
    if (w.vus !== undefined) {
      issue(
        "vus",
        `workload.vus applies to k6 only: wrk keeps workload.connections open and sends the next request as soon as one is answered; give connections (${LIMITS.connections.min}–${LIMITS.connections.max})`,
      );
    }
    if (w.arrivalRate !== undefined) {
      issue(
        "arrivalRate",
        "workload.arrivalRate applies to k6 only: wrk has connections, not an arrival rate (it cannot hold an open model); use loadgen k6 for a fixed rate",
      );
    }
    if (w.maxVus !== undefined) issue("maxVus", "workload.maxVus applies to k6 only (its open model)");
    if (w.protocol === "grpc") issue("protocol", "workload.protocol grpc needs loadgen k6: wrk speaks HTTP/1.1 only");
    if (w.connections === undefined) {
      issue(
        "connections",
        `give workload.connections (${LIMITS.connections.min}–${LIMITS.connections.max}) for wrk: how many connections it keeps busy`,
      );
    } else {
      const threads = w.threads ?? 1;
      if (threads * n > w.connections) {
        issue(
          "threads",
          `workload.threads × workload.loadgenInstances (${threads} × ${n}) must be at most workload.connections (${w.connections}): wrk gives each thread at least one connection`,
        );
      }
    }
    return;
  }
  if (w.connections !== undefined) {
    issue(
      "connections",
      "workload.connections applies to wrk only: k6's concurrency is workload.vus (closed model) or workload.arrivalRate (open model)",
    );
  }
  if (w.threads !== undefined) issue("threads", "workload.threads applies to wrk only: k6 schedules its VUs itself");
  if (w.vus === undefined && w.arrivalRate === undefined) {
    issue(
      "vus",
      `give workload.vus (closed model, ${LIMITS.vus.min}–${LIMITS.vus.max}) or workload.arrivalRate (open model, ${LIMITS.arrivalRate.min}–${LIMITS.arrivalRate.max} req/s)`,
    );
  }
  if (w.vus !== undefined && w.arrivalRate !== undefined) {
    issue("arrivalRate", "give either workload.vus (closed model) or workload.arrivalRate (open model), not both");
  }
  if (w.maxVus !== undefined && w.arrivalRate === undefined) {
    issue("maxVus", "workload.maxVus applies only with workload.arrivalRate (open model)");
  }
  if (w.vus !== undefined && w.vus < n)
    issue("vus", `workload.vus (${w.vus}) must be at least workload.loadgenInstances (${n}): each instance runs at least one VU`);
  if (w.arrivalRate !== undefined && w.arrivalRate < n) {
    issue(
      "arrivalRate",
      `workload.arrivalRate (${w.arrivalRate}) must be at least workload.loadgenInstances (${n}): each instance sends at least 1 req/s`,
    );
  }
});
export type TWorkload = z.infer<typeof ZWorkload>;
export type TWorkloadInput = z.input<typeof ZWorkload>;

export const ZRunCreate = strict("", {
  name: text("name", LIMITS.name.max).optional(),
  topology: ZTopology,
  workload: ZWorkload,
  /** The fault timeline (./faults.ts): container and network faults at given seconds of the load. */
  faults: ZFaults.default([]),
}).superRefine((run, ctx) => {
  const { topology: t, workload: w } = run;
  if (run.faults.length > 0) {
    for (const { path, message } of faultIssues(run.faults, faultableRoles(run), w.durationSeconds))
      ctx.addIssue({ code: "custom", path, message });
  }
  if (w.protocol === "grpc") {
    if (w.endpoint !== "hostname") {
      ctx.addIssue({
        code: "custom",
        path: ["workload", "endpoint"],
        message: `workload.endpoint must be hostname with protocol grpc: the testbed's gRPC service has one unary call, Hostname/Get (${w.endpoint} is HTTP only)`,
      });
    }
    if (t.service.kind !== "testbed") {
      ctx.addIssue({
        code: "custom",
        path: ["workload", "protocol"],
        message: `workload.protocol grpc needs service.kind testbed: the ${t.service.kind} server speaks HTTP only`,
      });
    }
  }
  if (t.service.kind !== "testbed") {
    if (w.endpoint !== "key") {
      ctx.addIssue({
        code: "custom",
        path: ["workload", "endpoint"],
        message: `workload.endpoint must be key with service.kind ${t.service.kind}: it serves only the hot key (service.kind testbed serves every endpoint: ${ENDPOINTS.join(", ")})`,
      });
    }
    if (t.downstream.mode !== "none" || t.storage.kind !== "none") {
      ctx.addIssue({
        code: "custom",
        path: ["topology", t.downstream.mode !== "none" ? "downstream" : "storage"],
        message: `topology.downstream and topology.storage apply only to service.kind testbed (the ${t.service.kind} server reads one key, nothing else)`,
      });
    }
  }
  if (STORAGE_ENDPOINTS.includes(w.endpoint) && t.storage.kind === "none") {
    ctx.addIssue({
      code: "custom",
      path: ["workload", "endpoint"],
      message: `workload.endpoint ${w.endpoint} needs a store: set topology.storage.kind to postgres or cassandra`,
    });
  }
  if (t.broker && t.downstream.mode !== "async") {
    ctx.addIssue({
      code: "custom",
      path: ["topology", "broker"],
      message: "topology.broker applies only with topology.downstream.mode async",
    });
  }
  if (t.storage.kind === "postgres" && t.storage.poolSize * t.service.replicas > LIMITS.postgresConnections.max) {
    const most = Math.floor(LIMITS.postgresConnections.max / t.service.replicas);
    ctx.addIssue({
      code: "custom",
      path: ["topology", "storage", "poolSize"],
      message: `storage.poolSize must be between 1 and ${most} with ${t.service.replicas} replica(s): Postgres takes at most ${LIMITS.postgresConnections.max} connections from the replicas' pools together`,
    });
  }
  if (t.storage.kind === "cassandra" && t.storage.memoryMb < LIMITS.cassandraMemoryMb.min) {
    ctx.addIssue({
      code: "custom",
      path: ["topology", "storage", "memoryMb"],
      message: `storage.memoryMb must be between ${LIMITS.cassandraMemoryMb.min} and ${LIMITS.cassandraMemoryMb.max} for cassandra`,
    });
  }
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
