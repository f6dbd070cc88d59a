import { z } from "zod";
import { int, LIMITS, num, oneOf, strict } from "./fields";

export const ENDPOINTS = ["hostname", "cpu", "products", "activity", "key"] as const;
/** Endpoints that read or write the store. */
export const STORAGE_ENDPOINTS: readonly (typeof ENDPOINTS)[number][] = ["products", "activity"];

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
  if (w.protocol === "grpc" && w.endpoint !== "hostname") {
    issue(
      "endpoint",
      `workload.endpoint must be hostname with protocol grpc: the testbed's gRPC service has one unary call, Hostname/Get (${w.endpoint} is HTTP only)`,
    );
  }
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
