import { z } from "zod";
import { ERROR_KINDS, ZErrorCounts, ErrorKind, TErrorCounts } from "./faults";
import { round } from "../analysis/stats";

/*
 * Per-backend truth: every request of a second attributed to the backend that answered it, with its
 * errors by kind and the latency of its responses. The name is the response's X-Backend header
 * (x-backend metadata in gRPC); two names stand for requests no replica answered:
 */

/** The balancer answered itself: a response without X-Backend (e.g. nginx's 502 when its upstream is down). */
export const BALANCER_KEY = "balancer";
/** Nobody answered: a timeout or a connection error before any response. */
export const NO_ANSWER_KEY = "no answer";
/** Something answered, but nothing said which replica (wrk without a balancer in front of a user's image). */
export const UNKNOWN_KEY = "unknown";
/** sl-wrk's name for the backends past the 64 distinct names a thread keeps. */
const OTHER_KEY = "other";
const RESERVED_KEYS: readonly string[] = [BALANCER_KEY, NO_ANSWER_KEY, UNKNOWN_KEY, OTHER_KEY];

/** The testbed's and experiment 7's servers name themselves in every answer. */
export const BACKEND_HEADER = "X-Backend";
/**
 * The balancer's own header: the address of the replica that answered (nginx `$upstream_addr` when
 * the replica sent a response, HAProxy `%si:%sp` on a server's response), absent when the balancer
 * answered itself. What names the replica of a user's image, which says nothing of itself.
 */
export const UPSTREAM_HEADER = "X-Scalelab-Upstream";

/**
 * Where the load generator learns which replica answered a request:
 * - `header`: the replica's X-Backend (the lab's own servers: the testbed, experiment 7's);
 * - `balancer`: the balancer's UPSTREAM_HEADER, an address (a user's image behind a balancer);
 * - `address`: the address the connection reached (k6's remote_ip:remote_port; a user's image
 *   without a balancer: the connection goes to a replica itself);
 * - `unknown`: nothing (wrk without a balancer: it keeps no address per response); every answered
 *   request is counted under UNKNOWN_KEY, and the distribution over the replicas is not computed.
 */
export const BACKEND_SOURCES = ["header", "balancer", "address", "unknown"] as const;
export type BackendSource = (typeof BACKEND_SOURCES)[number];

export function backendSource(run: {
  topology: { service: { kind: string }; balancer: { kind: string } };
  workload: { loadgen: string };
}): BackendSource {
  if (run.topology.service.kind !== "image") return "header";
  if (run.topology.balancer.kind !== "none") return "balancer";
  return run.workload.loadgen === "k6" ? "address" : "unknown";
}

/** The replicas' addresses on the run network (IPv4 or IPv6, no port) → their names (`app-0`); a fault proxy's → the replica it stands for. */
export type BackendAddresses = Readonly<Record<string, string>>;

/**
 * The host part of the last address of a list: nginx's `$upstream_addr` names every upstream it
 * tried, separated by ", " (the next upstream of the same request) and " : " (an internal
 * redirect); the last one answered. `172.18.0.5:8080` → `172.18.0.5`, `[fd00::5]:8080` → `fd00::5`;
 * undefined when the value is not an address (a name, a unix socket, an upstream group).
 */
export function addressHost(raw: string): string | undefined {
  const last = raw
    .split(/,| : /)
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .at(-1);
  if (!last) return undefined;
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::\d{1,5})?$/.exec(last);
  if (v6) return v6[1]!.toLowerCase();
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?$/.exec(last);
  if (v4) return v4[1];
  if (/^[0-9A-Fa-f]*:[0-9A-Fa-f:.]+$/.test(last)) return last.toLowerCase();
  return undefined;
}

/**
 * The replica a load generator's backend value stands for: the lab's keys (balancer, no answer,
 * unknown, other) and replica names stay as they are; an address (or nginx's list of them) becomes
 * the name of the replica or fault proxy at it; a value that maps to no replica is kept as it came,
 * never dropped. With the `unknown` source, what the load generator put under BALANCER_KEY (a
 * response without a name) is UNKNOWN_KEY: no balancer answered it.
 */
export function backendName(raw: string, addresses: BackendAddresses, source: BackendSource = "balancer"): string {
  if (source === "unknown" && raw === BALANCER_KEY) return UNKNOWN_KEY;
  if (RESERVED_KEYS.includes(raw)) return raw;
  const host = addressHost(raw);
  return (host !== undefined && Object.hasOwn(addresses, host) ? addresses[host] : undefined) ?? raw;
}

/** Per-backend counts under replica names (./backendName); two values of one replica add up. */
export function nameBackendCounts(
  counts: Readonly<Record<string, number>>,
  addresses: BackendAddresses,
  source: BackendSource,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [raw, n] of Object.entries(counts)) {
    const name = backendName(raw, addresses, source);
    out[name] = (out[name] ?? 0) + n;
  }
  return out;
}

/** Per-backend figures under replica names (./backendName); two values of one replica merge as mergeBackendStats does. */
export function nameBackendStats(stats: TBackendStats, addresses: BackendAddresses, source: BackendSource): TBackendStats {
  const groups = new Map<string, TBackendStats[]>();
  for (const [raw, s] of Object.entries(stats)) {
    const name = backendName(raw, addresses, source);
    groups.set(name, [...(groups.get(name) ?? []), { [name]: s }]);
  }
  const out: TBackendStats = {};
  for (const [name, parts] of groups) {
    const merged = parts.length === 1 ? parts[0]! : mergeBackendStats(parts)!;
    out[name] = merged[name]!;
  }
  return out;
}

/** A sample's or a summary's per-backend parts under replica names; the rest as it was. */
export function nameBackends<T extends { backends?: Record<string, number>; backendStats?: TBackendStats }>(
  part: T,
  addresses: BackendAddresses,
  source: BackendSource,
): T {
  if (source === "header") return part;
  return {
    ...part,
    ...(part.backends && { backends: nameBackendCounts(part.backends, addresses, source) }),
    ...(part.backendStats && { backendStats: nameBackendStats(part.backendStats, addresses, source) }),
  };
}

/** k6's error_code of a request it gave up on after its timeout (lib/netext/httpext/error_codes.go, v1.4.2). */
export const K6_REQUEST_TIMEOUT_CODE = 1050;

/** gRPC status codes the classification needs (google.golang.org/grpc/codes). */
export const GRPC_CODES = { OK: 0, DeadlineExceeded: 4, Unavailable: 14 } as const;

export const ZBackendLatency = z.object({
  avg: z.number(),
  max: z.number(),
  /** k6 only (a Trend per backend); wrk keeps no per-backend histogram. */
  p95: z.number().optional(),
});
export type TBackendLatency = z.infer<typeof ZBackendLatency>;

/**
 * One backend in one second (or, in the run summary, over the whole run). `latencyMs` is over its
 * responses; null when none came (always for NO_ANSWER_KEY).
 */
export const ZBackendSecond = z.object({
  /** Every request attributed to it, failed ones included. */
  requests: z.number().int(),
  errors: ZErrorCounts,
  latencyMs: ZBackendLatency.nullable(),
});
export type TBackendSecond = z.infer<typeof ZBackendSecond>;
export const ZBackendStats = z.record(z.string(), ZBackendSecond);
export type TBackendStats = Record<string, TBackendSecond>;

/**
 * The kind of a failed HTTP request, undefined when it did not fail: status 0 (no response) is a
 * timeout with k6's error_code 1050 and a connection error otherwise; 502, 503 and 504 are their own
 * kinds; any other status >= 400 is "other".
 */
export function httpErrorKind(status: number, errorCode = 0): ErrorKind | undefined {
  if (status === 0) return errorCode === K6_REQUEST_TIMEOUT_CODE ? "timeout" : "conn";
  if (status === 502 || status === 503 || status === 504) return String(status) as ErrorKind;
  return status >= 400 ? "other" : undefined;
}

/** Who answered an HTTP request: its X-Backend header, else the balancer if anything answered, else nobody. */
export function httpBackend(header: string | undefined, status: number): string {
  if (header) return header;
  return status !== 0 ? BALANCER_KEY : NO_ANSWER_KEY;
}

/**
 * The kind of a failed gRPC call (k6's res.status is its gRPC code), undefined when it succeeded:
 * DeadlineExceeded is a timeout; Unavailable carries the HTTP status when the message names 502, 503
 * or 504 (grpc-go's words for a non-gRPC answer, e.g. nginx's 502 when its upstream is down), is a
 * 503 when a replica answered it (the testbed's full queue: gRPC's counterpart of HTTP 503) and a
 * connection error otherwise; a call that threw (no connection) is a connection error (`code`
 * undefined); any other code is "other".
 */
export function grpcErrorKind(code: number | undefined, message: string, answeredBy?: string): ErrorKind | undefined {
  if (code === undefined) return "conn";
  if (code === GRPC_CODES.OK) return undefined;
  if (code === GRPC_CODES.DeadlineExceeded) return "timeout";
  if (code === GRPC_CODES.Unavailable) {
    const named = /\b(50[234])\b/.exec(message)?.[1] as ErrorKind | undefined;
    return named ?? (answeredBy ? "503" : "conn");
  }
  return "other";
}

/** Who answered a gRPC call: its x-backend metadata, else nobody for a timeout or a connection error, else the balancer. */
export function grpcBackend(metadata: string | undefined, kind: ErrorKind | undefined): string {
  if (metadata) return metadata;
  return kind === "timeout" || kind === "conn" ? NO_ANSWER_KEY : BALANCER_KEY;
}

export const errorCount = (e: TErrorCounts | undefined): number => ERROR_KINDS.reduce((n, k) => n + (e?.[k] ?? 0), 0);

/** Adds error counts; kinds with no error are left out. */
export function addErrors(parts: readonly (TErrorCounts | undefined)[]): TErrorCounts {
  const out: TErrorCounts = {};
  for (const k of ERROR_KINDS) {
    const n = parts.reduce((sum, p) => sum + (p?.[k] ?? 0), 0);
    if (n > 0) out[k] = n;
  }
  return out;
}

/** The errors of all backends together, by kind. */
export const errorKindsOf = (stats: TBackendStats): TErrorCounts => addErrors(Object.values(stats).map((s) => s.errors));

/**
 * Several load generators' figures of the same backends as one: counts add, the mean is weighted by
 * the requests of the parts that had responses, the max is the largest and p95 the worst part's (an
 * upper bound, as for the run's percentiles).
 */
export function mergeBackendStats(parts: readonly (TBackendStats | undefined)[]): TBackendStats | undefined {
  if (parts.every((p) => p === undefined)) return undefined;
  const names = [...new Set(parts.flatMap((p) => Object.keys(p ?? {})))];
  const out: TBackendStats = {};
  for (const name of names) {
    const of = parts.flatMap((p) => (p?.[name] ? [p[name]] : []));
    const timed = of.filter((s): s is TBackendSecond & { latencyMs: TBackendLatency } => s.latencyMs !== null);
    const weight = timed.reduce((n, s) => n + s.requests, 0);
    const p95s = timed.flatMap((s) => (s.latencyMs.p95 === undefined ? [] : [s.latencyMs.p95]));
    out[name] = {
      requests: of.reduce((n, s) => n + s.requests, 0),
      errors: addErrors(of.map((s) => s.errors)),
      latencyMs:
        timed.length === 0
          ? null
          : {
              avg: round(
                weight > 0
                  ? timed.reduce((n, s) => n + s.latencyMs.avg * s.requests, 0) / weight
                  : Math.max(...timed.map((s) => s.latencyMs.avg)),
              ),
              max: Math.max(...timed.map((s) => s.latencyMs.max)),
              ...(p95s.length > 0 && { p95: Math.max(...p95s) }),
            },
    };
  }
  return out;
}
