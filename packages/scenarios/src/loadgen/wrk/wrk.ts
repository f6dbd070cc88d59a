import { TSample } from "../../contract/results";
import { z } from "zod";
import { BACKEND_HEADER, BackendSource, errorCount, errorKindsOf, TBackendStats, UPSTREAM_HEADER } from "../../contract/backends";
import { ERROR_KINDS, TErrorCounts } from "../../contract/faults";
import { LIMITS } from "../../contract/fields";
import { HTTP_METHODS } from "../../contract/workload";
import { ZLatency, TLatency, ZLatencyHistogram, TLatencyHistogram } from "../../contract/latency";
import { WithHistogram } from "../histogram";
import { round } from "../../analysis/stats";

/*
 * wrk as the load generator: sl-wrk, wrk 4.1.0 with Scalelab's patch
 * (packages/images/contexts/wrk/sl-wrk.patch). With WRK_REPORT_FLAG it prints one JSON line per
 * second on stdout, then wrk's usual text report (not JSON; no line of it starts with `{`):
 *   {"type":"start","at":<unix ms>}
 *   {"type":"sample","t":<s>,"requests":N,"errors":{"connect":N,"read":N,"write":N,"status":N,"timeout":N},
 *    "latencyMs":{"avg","p50","p90","p95","p99","max"}|null,"hist":{"<slot>":N,...},"backends":{"<X-Backend>":N,...},
 *    "backendStats":{"<name>":{"requests":N,"errors":{"<kind>":N,...},"latencyUs":{"count":N,"sum":N,"max":N}},...}}
 *   {"type":"summary","at":<unix ms>,"durationMs":N,"requests":N,"errors":{...},"latencyMs":{...}|null,"hist":{...},"backends":{...},"backendStats":{...}}
 *   {"type":"latencies","us":{"<us>":N,...}}   only with --sl-dump-latencies (a debug aid: every latency, exact)
 * `t` counts whole seconds from the start line, one sample for every second of the duration;
 * responses after the last second (until wrk's threads stop, ~0.1 s) are in the summary only.
 * SIGINT (not SIGTERM) ends a run early with a sample for the partial second and the summary.
 * Counters are read live, thread after thread: a response may fall on either side of a second,
 * so a sample's backends can differ from its requests by one or two; the sums agree.
 * Sample latencies come from a log-linear histogram (within 0.4 %); the summary's from wrk's full
 * histogram, before the coordinated-omission correction of wrk's text report. `status` counts
 * responses >= 400, `timeout` responses slower than --timeout (wrk 4.1.0 does not abort them).
 * backendStats (./backends.ts) puts every request under the backend of its X-Backend header, "balancer"
 * without it, "no answer" for a failed connection (kind conn, no latency), each failed one under one
 * kind: a late response is a timeout under the backend that sent it, whatever its status (wrk's own
 * counters count a late error response twice, as status and timeout); a backend's latency is the
 * mean and max of its responses, late ones included. `hist` is the second's (the run's) latencies
 * as the mergeable histogram of ../histogram.ts, from the same slots as latencyMs. Lines of an older
 * sl-wrk have no backendStats or hist.
 */

export const WRK_REPORT_BINARY = "sl-wrk";
/** The image's unpatched Debian wrk, for comparing the lab's figures with a hand-run wrk. */
export const WRK_REPORT_STOCK_BINARY = "wrk";
export const WRK_REPORT_FLAG = "--sl-report";
export const WRK_REPORT_BACKEND_FLAG = "--sl-backend-header";
export const WRK_REPORT_BACKEND_HEADER = BACKEND_HEADER;
/**
 * The header sl-wrk counts responses by, for the run's BackendSource: the replica's X-Backend, or
 * the balancer's address header. wrk keeps no address per response, so without a balancer in front
 * of a user's image ("unknown") nothing names the replica: the balancer's header, which no one
 * sets there, leaves every response without a name, and the worker counts them as unknown.
 */
export const wrkBackendHeader = (source: BackendSource): string => (source === "header" ? BACKEND_HEADER : UPSTREAM_HEADER);
const BACKEND_HEADERS: readonly string[] = [BACKEND_HEADER, UPSTREAM_HEADER];
/** Backends past the 64 distinct names a wrk thread keeps are counted under this name. */
export const WRK_REPORT_OTHER_BACKEND = "other";

export type WrkCommandInput = {
  /** The balancer or the service's shared alias, e.g. "http://lb:8080". */
  target: string;
  path: string;
  /** Set by the script (renderWrkScript, renderWrkRequestScript); checked here so that a call cannot pass something else. */
  method: (typeof HTTP_METHODS)[number];
  threads: number;
  connections: number;
  durationSeconds: number;
  timeoutMs: number;
  /** Where the container finds the script of renderWrkScript. */
  scriptPath: string;
  /** The header that names the replica (wrkBackendHeader); X-Backend when absent. */
  backendHeader?: string;
};

const METHODS: readonly string[] = ["GET", "POST"];

const wholeNumber = (name: string, n: number, min: number, max: number): number => {
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number between ${min} and ${max}`);
  return n;
};

/** The argv of one sl-wrk container: the per-second report, backends from X-Backend (or the balancer's header), the static script. */
export function wrkCommand(input: WrkCommandInput): string[] {
  const { target, path, method, scriptPath, backendHeader = WRK_REPORT_BACKEND_HEADER } = input;
  if (!BACKEND_HEADERS.includes(backendHeader)) throw new Error(`invalid backend header ${JSON.stringify(backendHeader)}`);
  if (!/^http:\/\/(lb|app):\d{1,5}$/.test(target)) throw new Error(`invalid load target ${JSON.stringify(target)}`);
  if (!/^\/[A-Za-z0-9/_.-]*$/.test(path)) throw new Error(`invalid request path ${JSON.stringify(path)}`);
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    throw new Error(`invalid method ${JSON.stringify(method)}; wrk sends ${HTTP_METHODS.join(", ")}`);
  }
  if (!/^\/[A-Za-z0-9/_.-]+$/.test(scriptPath)) throw new Error(`invalid script path ${JSON.stringify(scriptPath)}`);
  const threads = wholeNumber("wrk threads", input.threads, LIMITS.loadgenThreads.min, LIMITS.loadgenThreads.max);
  const connections = wholeNumber("wrk connections", input.connections, 1, LIMITS.connections.max);
  if (connections < threads) {
    throw new Error(
      `wrk connections (${connections}) must be at least its threads (${threads}): wrk gives each thread connections / threads`,
    );
  }
  const duration = wholeNumber("wrk duration (s)", input.durationSeconds, 1, LIMITS.durationSeconds.max);
  const timeoutMs = wholeNumber("wrk timeout (ms)", input.timeoutMs, 1, LIMITS.requestTimeoutMs.max);
  return [
    WRK_REPORT_BINARY,
    WRK_REPORT_FLAG,
    WRK_REPORT_BACKEND_FLAG,
    backendHeader,
    `-t${threads}`,
    `-c${connections}`,
    `-d${duration}s`,
    // wrk 4.1.0 takes whole seconds here (it rejects "ms").
    "--timeout",
    `${Math.ceil(timeoutMs / 1000)}s`,
    "-s",
    scriptPath,
    "--latency",
    target + path,
  ];
}

/**
 * The static Lua script: it only sets the request. wrk builds a static request once per thread
 * and reuses it; a request() or response() hook would run Lua for every request. The method comes
 * from a fixed set and the body is JSON.stringify output in a long string no text can close.
 */
export function renderWrkScript(input: { method: "GET" | "POST"; body?: Record<string, unknown> }): string {
  const { method, body } = input;
  if (!METHODS.includes(method)) throw new Error(`invalid method ${JSON.stringify(method)}; wrk sends GET or POST`);
  if (body !== undefined && method !== "POST") throw new Error("only a POST request has a body");
  const lines = [
    "-- Generated by Scalelab (renderWrkScript). It defines no request() or response() hook, so wrk",
    "-- sends one prebuilt request on every connection and never runs Lua on its fast path.",
    `wrk.method = ${JSON.stringify(method)}`,
  ];
  if (body !== undefined) {
    const json = JSON.stringify(body);
    let level = "";
    while (json.includes(`]${level}]`)) level += "=";
    lines.push(`wrk.headers["Content-Type"] = "application/json"`, `wrk.body = [${level}[${json}]${level}]`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A Lua string literal of `text` (its UTF-8 bytes): printable ASCII but `"` and `\\` as it is, every
 * other byte as a three-digit decimal escape (\\ddd), so no text can end the literal or the line.
 */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of new TextEncoder().encode(text)) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, "0")}`;
  }
  return `${out}"`;
}

/**
 * The static Lua script of the user's request (workload.request): method, path, headers and body
 * as wrk's own fields, each a luaString literal; wrk's init builds the request once from them with
 * wrk.format() (Content-Length from the body), so no hook runs per request.
 */
export function renderWrkRequestScript(r: { method: string; path: string; headers?: Record<string, string>; body?: string }): string {
  const lines = [
    "-- Generated by Scalelab (renderWrkRequestScript) from workload.request. No request() or response()",
    "-- hook: wrk.init builds the request once with wrk.format() from these fields.",
    `wrk.method = ${luaString(r.method)}`,
    `wrk.path = ${luaString(r.path)}`,
    ...Object.entries(r.headers ?? {}).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
    ...(r.body !== undefined ? [`wrk.body = ${luaString(r.body)}`] : []),
  ];
  return `${lines.join("\n")}\n`;
}

const count = z.number().int().nonnegative();
const ZWrkErrors = z.object({ connect: count, read: count, write: count, status: count, timeout: count });
const ZWrkBackendStats = z.record(
  z.string(),
  z.object({
    requests: count,
    errors: z.partialRecord(z.enum(ERROR_KINDS), count),
    latencyUs: z.object({ count, sum: count, max: count }).optional(),
  }),
);
const ZWrkLine = z.discriminatedUnion("type", [
  z.object({ type: z.literal("start"), at: count }),
  z.object({
    type: z.literal("sample"),
    t: count,
    requests: count,
    errors: ZWrkErrors,
    latencyMs: ZLatency.nullable(),
    hist: ZLatencyHistogram.optional(),
    backends: z.record(z.string(), count),
    backendStats: ZWrkBackendStats.optional(),
  }),
  z.object({
    type: z.literal("summary"),
    at: count,
    durationMs: count,
    requests: count,
    errors: ZWrkErrors,
    latencyMs: ZLatency.nullable(),
    hist: ZLatencyHistogram.optional(),
    backends: z.record(z.string(), count),
    backendStats: ZWrkBackendStats.optional(),
  }),
  z.object({ type: z.literal("latencies"), us: z.record(z.string().regex(/^[0-9]+$/), count) }),
]);

export type WrkErrors = z.infer<typeof ZWrkErrors>;

/** The whole run as wrk counted it, responses after the last sample included. */
export type WrkSummary = {
  durationMs: number;
  requests: number;
  /** All kinds together, as in a sample. */
  errors: number;
  errorsByKind: WrkErrors;
  /** null when no request completed within the timeout. */
  latencyMs: TLatency | null;
  backends: Record<string, number>;
  /** Absent from an older sl-wrk. */
  backendStats?: TBackendStats;
  errorKinds?: TErrorCounts;
  /** The run's latencies (../histogram.ts); absent from an older sl-wrk. */
  histogram?: TLatencyHistogram;
};

export type WrkUpdate =
  { type: "start"; at: Date } | { type: "sample"; sample: WithHistogram<TSample> } | { type: "stop"; at: Date; summary: WrkSummary };

const errorTotal = (e: WrkErrors): number => e.connect + e.read + e.write + e.status + e.timeout;
/**
 * Requests whose connection failed (connect, read or write error) got no response, so wrk leaves
 * them out of its request count; the lab counts them as failed requests, as k6 does.
 */
export const unanswered = (e: WrkErrors): number => e.connect + e.read + e.write;

/** sl-wrk's per-backend figures as the lab's: latency in ms, the mean from the sum (null without responses). */
function backendStatsOf(raw: z.infer<typeof ZWrkBackendStats>): TBackendStats {
  const out: TBackendStats = {};
  for (const [name, b] of Object.entries(raw)) {
    const l = b.latencyUs;
    out[name] = {
      requests: b.requests,
      errors: Object.fromEntries(Object.entries(b.errors).filter(([, n]) => n > 0)),
      latencyMs: l && l.count > 0 ? { avg: round(l.sum / l.count / 1000), max: l.max / 1000 } : null,
    };
  }
  return out;
}

/** Per backend, and the errors by kind; absent for an older sl-wrk. */
function truthOf(raw: z.infer<typeof ZWrkBackendStats> | undefined) {
  if (!raw) return undefined;
  const backendStats = backendStatsOf(raw);
  return { backendStats, errorKinds: errorKindsOf(backendStats) };
}

/** Reads sl-wrk's stdout line by line. */
export class WrkOutputReader {
  /** Returns what the line means for the run; undefined for wrk's text report. */
  push(line: string): WrkUpdate | undefined {
    const text = line.trim();
    if (!text.startsWith("{")) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`sl-wrk printed a line that is not JSON: ${text.slice(0, 200)}`);
    }
    const parsed = ZWrkLine.safeParse(json);
    if (!parsed.success) {
      throw new Error(`sl-wrk printed an unexpected line (${z.prettifyError(parsed.error).replace(/\n/g, " ")}): ${text.slice(0, 200)}`);
    }
    const l = parsed.data;
    switch (l.type) {
      case "start":
        return { type: "start", at: new Date(l.at) };
      case "sample": {
        const truth = truthOf(l.backendStats);
        return {
          type: "sample",
          sample: {
            t: l.t,
            requests: l.requests + unanswered(l.errors),
            // One kind per failed request (see the top of this file), else wrk's counters.
            errors: truth ? errorCount(truth.errorKinds) : errorTotal(l.errors),
            latencyMs: l.latencyMs,
            backends: l.backends,
            ...truth,
            ...(l.hist && { histogram: l.hist }),
          },
        };
      }
      case "summary": {
        const truth = truthOf(l.backendStats);
        return {
          type: "stop",
          at: new Date(l.at),
          summary: {
            durationMs: l.durationMs,
            requests: l.requests,
            errors: truth ? errorCount(truth.errorKinds) : errorTotal(l.errors),
            errorsByKind: l.errors,
            latencyMs: l.latencyMs,
            backends: l.backends,
            ...truth,
            ...(l.hist && { histogram: l.hist }),
          },
        };
      }
      case "latencies":
        return undefined;
    }
  }
}
