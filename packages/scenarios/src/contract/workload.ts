import { z } from "zod";
import { int, LIMITS, num, oneOf, sized, strict, urlPath } from "./fields";

export const ENDPOINTS = ["hostname", "cpu", "products", "activity", "key"] as const;
/** Endpoints that read or write the store. */
export const STORAGE_ENDPOINTS: readonly (typeof ENDPOINTS)[number][] = ["products", "activity"];

export const LOADGENS = ["k6", "wrk"] as const;
export const PROTOCOLS = ["http", "grpc"] as const;

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
/** A header name: an HTTP token (RFC 9110). */
export const HEADER_NAME_PATTERN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
/** Headers the load generator sets itself. */
export const RESERVED_HEADERS = ["host", "content-length", "transfer-encoding", "connection"] as const;

/** One request template: what k6 and wrk send for `workload.request`, and each entry of `workload.requests`. */
function requestShape(field: string) {
  return {
    method: oneOf(`${field}.method`, HTTP_METHODS).default("GET"),
    /** The path and query on the target (the balancer, or the service without one). */
    path: urlPath(`${field}.path`).default("/"),
    headers: z
      .record(
        z.string().regex(HEADER_NAME_PATTERN, {
          error: `${field}.headers names must be HTTP tokens (letters, digits and !#$%&'*+.^_\`|~-), 1–128 characters`,
        }),
        sized(`${field}.headers values`, LIMITS.headerValueBytes.max).refine((v) => !/[\r\n]/.test(v), {
          error: `${field}.headers values must be one line (no CR or LF)`,
        }),
        {
          error: (iss) =>
            iss.code === "invalid_type"
              ? `${field}.headers must be an object of Name: value strings`
              : iss.code === "invalid_key"
                ? `${field}.headers names must be HTTP tokens (letters, digits and !#$%&'*+.^_\`|~-), 1–128 characters`
                : undefined,
        },
      )
      .refine((h) => Object.keys(h).length <= LIMITS.headers.max, {
        error: `${field}.headers must have at most ${LIMITS.headers.max} headers`,
      })
      .refine((h) => !Object.keys(h).some((k) => (RESERVED_HEADERS as readonly string[]).includes(k.toLowerCase())), {
        error: `${field}.headers must not set ${RESERVED_HEADERS.join(", ")}: the load generator sets them`,
      })
      .optional(),
    /** The body, sent as it is (give its Content-Type in headers). */
    body: sized(`${field}.body`, LIMITS.bodyBytes.max).optional(),
  };
}

const bodyless = (r: { method: string; body?: string }) => !(r.body !== undefined && (r.method === "GET" || r.method === "HEAD"));

export const ZRequest = strict("workload.request", requestShape("workload.request")).refine(bodyless, {
  path: ["body"],
  error: "workload.request.body is not sent with GET or HEAD: use POST, PUT or PATCH, or leave the body out",
});
export type TRequest = z.infer<typeof ZRequest>;

export const ZWeightedRequest = strict("workload.requests[]", {
  ...requestShape("workload.requests[]"),
  /** Its share of the mix: weight / the sum of the weights. */
  weight: int("workload.requests[].weight", LIMITS.weight).default(1),
}).refine(bodyless, { path: ["body"], error: "workload.requests[].body is not sent with GET or HEAD: use POST, PUT or PATCH" });
export type TWeightedRequest = z.infer<typeof ZWeightedRequest>;

/** What the load sends: one of the testbed's endpoints, or the user's request, mix or k6 script. */
export type CustomWorkload = "request" | "requests" | "script";
export function customWorkload(w: { request?: unknown; requests?: unknown; script?: unknown }): CustomWorkload | undefined {
  if (w.script !== undefined) return "script";
  if (w.requests !== undefined) return "requests";
  if (w.request !== undefined) return "request";
  return undefined;
}

/**
 * The load. With k6 (the default): the closed model, `vus` virtual users looping for
 * `durationSeconds` (constant-vus), or the open model, `arrivalRate` requests per second whatever
 * the latency (constant-arrival-rate) with at most `maxVus` in flight; exactly one of the two.
 * With wrk: `connections` kept busy by `threads` (a closed model only: wrk has no arrival rate).
 * `loadgenInstances` containers share the load (VUs, rate or connections split evenly), each with
 * `loadgenCpus`, and their figures merge into one series.
 */
export const ZWorkload = strict("workload", {
  /** One of the testbed's endpoints; omitted = hostname (the one call the gRPC service has). Not used with request, requests or script. */
  endpoint: oneOf("workload.endpoint", ENDPOINTS).default("hostname"),
  /** One request template, for any service (k6 and wrk). */
  request: ZRequest.optional(),
  /** A weighted mix of requests (k6): each iteration picks one by weight. */
  requests: z
    .array(ZWeightedRequest, { error: "workload.requests must be a list of requests" })
    .min(LIMITS.requests.min, { error: `workload.requests must have ${LIMITS.requests.min}–${LIMITS.requests.max} entries` })
    .max(LIMITS.requests.max, { error: `workload.requests must have ${LIMITS.requests.min}–${LIMITS.requests.max} entries` })
    .optional(),
  /**
   * The user's own k6 script (at most 256 KB). It gets the target's base URL in
   * `__ENV.SCALELAB_TARGET`, and the run's VUs or rate and duration as its options unless it
   * declares its own `scenarios`.
   */
  script: sized("workload.script", LIMITS.scriptBytes.max)
    .refine((s) => s.trim().length > 0, { error: "workload.script must not be empty" })
    .optional(),
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
  const given = (["request", "requests", "script"] as const).filter((k) => w[k] !== undefined);
  if (given.length > 1) {
    issue(
      given[1]!,
      `give one of workload.request, workload.requests or workload.script, not ${given.map((k) => `workload.${k}`).join(" and ")}`,
    );
  }
  const custom = customWorkload(w);
  if (custom) {
    if (w.endpoint !== "hostname") {
      issue("endpoint", `workload.endpoint is the testbed's built-in endpoint: with workload.${custom} it is not used, leave it out`);
    }
    if (w.protocol === "grpc")
      issue("protocol", `workload.${custom} is HTTP: workload.protocol grpc calls the testbed's gRPC service only`);
    if (w.loadgen === "wrk" && custom !== "request") {
      issue(custom, `workload.${custom} needs loadgen k6 (wrk sends one request template: use workload.request)`);
    }
  }
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
  // A script may declare its own scenarios (the worker checks it with k6 inspect before the run starts).
  if (w.vus === undefined && w.arrivalRate === undefined && custom !== "script") {
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
