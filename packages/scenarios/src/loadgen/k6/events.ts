import { TWorkload } from "../../contract/workload";
import { TRunSummary, TSample, TScriptSummary } from "../../contract/results";
import { TLatency } from "../../contract/latency";
import { errorCount, errorKindsOf, TBackendStats } from "../../contract/backends";
import { ERROR_KINDS, ErrorKind } from "../../contract/faults";
import {
  BACKEND_ERROR_SEPARATOR,
  BACKEND_ERROR_TAG,
  BACKEND_ERRORS_METRIC,
  BACKEND_HITS_METRIC,
  BACKEND_LATENCY_METRIC,
  BACKEND_REQS_METRIC,
  BACKEND_TAG,
  K6_METRICS,
} from "./script";
import { countFromRate, errorRate, perSecond } from "../../analysis/stats";

/*
 * The k6 web dashboard (`K6_WEB_DASHBOARD=true`) streams these SSE events at /events
 * (k6 v1.4.2, xk6-dashboard v0.7.13), replayed from the beginning to every new client:
 *   config      the UI layout (ignored)
 *   param       {"period":1000,"aggregates":{"counter":["count","rate"],"gauge":["value"],
 *                "rate":["rate"],"trend":["avg","max","med","min","p(90)","p(95)","p(99)"]},...}
 *   metric      {"<name>":{"type":"counter|gauge|rate|trend",...}} for metrics first seen, tagged
 *               sub-metrics included as `backend_hits{backend:app-0}`
 *   start/stop  [[<unix ms>]]
 *   cumulative  since the start, then `snapshot` for the last period: an array with one entry per
 *               known metric, in byte order of the metric names; each entry holds the aggregates of
 *               the metric's type in the order given by `param`, or is [] when the metric has no
 *               value yet (in a snapshot: none during that period). The `time` gauge is the
 *               bucket's end in unix ms.
 * The period in which the test stops gets a cumulative event but no snapshot (see END_TAIL_SECONDS).
 * Per-backend truth comes from the script's own metrics (k6.ts): `backend_reqs{backend:<name>}`,
 * `backend_errors{backend_error:<kind>/<name>}` and the Trend `backend_latency{backend:<name>}`; a
 * sub-metric's name is the metric's, then `{tag:value}` with the value as the script gave it. Counts
 * are exact (the dashboard rounds only fractions): the run's backends add up to its requests; a
 * second's may differ by a request or two, as the script counts a request just after k6 does.
 */

export type K6Update = { type: "start"; at: Date } | { type: "sample"; sample: TSample } | { type: "stop"; at: Date };

type MetricType = "counter" | "gauge" | "rate" | "trend";
type Values = Record<string, number>;

const DEFAULT_AGGREGATES: Record<MetricType, string[]> = {
  counter: ["count", "rate"],
  gauge: ["value"],
  rate: ["rate"],
  trend: ["avg", "max", "med", "min", "p(90)", "p(95)", "p(99)"],
};

const BACKEND_PREFIX = `${BACKEND_HITS_METRIC}{${BACKEND_TAG}:`;
const REQS_PREFIX = `${BACKEND_REQS_METRIC}{${BACKEND_TAG}:`;
const ERRORS_PREFIX = `${BACKEND_ERRORS_METRIC}{${BACKEND_ERROR_TAG}:`;
const LATENCY_PREFIX = `${BACKEND_LATENCY_METRIC}{${BACKEND_TAG}:`;
/** The metrics the lab's scripts (and the wrapper around a user's) make themselves. */
const LAB_METRICS: ReadonlySet<string> = new Set([
  BACKEND_HITS_METRIC,
  BACKEND_REQS_METRIC,
  BACKEND_ERRORS_METRIC,
  BACKEND_LATENCY_METRIC,
  K6_METRICS.grpc.requests,
  K6_METRICS.grpc.failed,
]);
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class K6EventReader {
  private aggregates = DEFAULT_AGGREGATES;
  private periodMs = 1000;
  private readonly types = new Map<string, MetricType>();
  /** Metrics a script made (k6 flags them `custom`), the lab's own per-backend ones included, and what their values are. */
  private readonly custom = new Map<string, string | undefined>();
  private names: string[] = [];
  private startMs: number | undefined;
  private lastT = -1;
  private lastCumulative: Map<string, Values> | undefined;
  private readonly metrics: (typeof K6_METRICS)[TWorkload["protocol"]];

  constructor(protocol: TWorkload["protocol"] = "http") {
    this.metrics = K6_METRICS[protocol];
  }

  /** Feeds one SSE event; returns what it means for the run, if anything. */
  push(event: string, data: string): K6Update | undefined {
    switch (event) {
      case "param": {
        const p = JSON.parse(data) as { period?: number; aggregates?: Partial<Record<MetricType, string[]>> };
        this.aggregates = { ...DEFAULT_AGGREGATES, ...p.aggregates };
        if (p.period) this.periodMs = p.period;
        return undefined;
      }
      case "metric": {
        for (const [name, meta] of Object.entries(
          JSON.parse(data) as Record<string, { type: MetricType; custom?: boolean; contains?: string }>,
        )) {
          this.types.set(name, meta.type);
          if (meta.custom) this.custom.set(name, meta.contains);
        }
        this.names = [...this.types.keys()].sort(byteOrder);
        return undefined;
      }
      case "start":
        this.startMs = timestampOf(data);
        return { type: "start", at: new Date(this.startMs) };
      case "stop":
        return { type: "stop", at: new Date(timestampOf(data)) };
      case "cumulative":
        this.lastCumulative = this.decode(data);
        return undefined;
      case "snapshot":
        return { type: "sample", sample: this.sample(this.decode(data)) };
      default:
        return undefined;
    }
  }

  /**
   * The whole run, from the last cumulative event; undefined before the first one. Rates are over
   * `loadSeconds`, the load's configured duration: k6's own clock also counts the idle teardown.
   */
  summary(loadSeconds: number): TRunSummary | undefined {
    const m = this.lastCumulative;
    if (!m) return undefined;
    const { requests: reqs, failed, duration } = this.metrics;
    const requests = m.get(reqs)?.count ?? 0;
    const errors = countFromRate(m.get(failed)?.rate ?? 0, requests);
    const dropped = m.get("dropped_iterations")?.count;
    // The whole run's per-backend counts are exact (the failure rate comes with five significant digits).
    const truth = this.backendTruth(m);
    return {
      requests,
      rps: perSecond(requests, loadSeconds),
      errors: truth?.errors ?? errors,
      errorRate: errorRate(truth?.errors ?? errors, requests),
      latencyMs: latency(m.get(duration)),
      durationSeconds: loadSeconds,
      backends: backends(m),
      ...(truth && { errorKinds: truth.errorKinds, backendStats: truth.backendStats }),
      ...(dropped !== undefined && { droppedIterations: dropped }),
    };
  }

  /**
   * The user script's own metrics over the whole run, from the last cumulative event: every metric
   * k6 flags as custom but the lab's (LAB_METRICS), without tagged sub-metrics; by name. A metric
   * that got no value has none.
   */
  scriptMetrics(): TScriptSummary["metrics"] {
    const m = this.lastCumulative;
    if (!m) return [];
    return [...this.custom.keys()]
      .filter((name) => !name.includes("{") && !LAB_METRICS.has(name) && m.has(name))
      .sort(byteOrder)
      .map((name) => {
        const contains = this.custom.get(name);
        return {
          name,
          type: this.types.get(name)!,
          ...((contains === "time" || contains === "data") && { contains }),
          values: m.get(name)!,
        };
      });
  }

  private sample(m: Map<string, Values>): TSample {
    const { requests: reqs, failed, duration } = this.metrics;
    const requests = m.get(reqs)?.count ?? 0;
    const endMs = m.get("time")?.value;
    const fromClock = endMs !== undefined && this.startMs !== undefined ? Math.round((endMs - this.startMs) / this.periodMs) - 1 : -1;
    // A flush that comes late must not reuse the previous second's slot.
    this.lastT = Math.max(this.lastT + 1, fromClock);
    const truth = this.backendTruth(m);
    return {
      t: this.lastT,
      requests,
      // From the failure rate, as the requests from http_reqs: the script counts each request under its
      // backend a moment after k6 counted it, so at a second's edge the two may differ by a request or two.
      errors: countFromRate(m.get(failed)?.rate ?? 0, requests),
      latencyMs: m.has(duration) ? latency(m.get(duration)) : null,
      backends: backends(m),
      ...(truth && { backendStats: truth.backendStats, errorKinds: truth.errorKinds }),
    };
  }

  /** Per backend, once the script has counted a request under its metrics (a script before them never does). */
  private backendTruth(m: Map<string, Values>) {
    if (!this.types.has(BACKEND_REQS_METRIC)) return undefined;
    const backendStats = backendStatsOf(m);
    const errorKinds = errorKindsOf(backendStats);
    return { backendStats, errorKinds, errors: errorCount(errorKinds) };
  }

  private decode(data: string): Map<string, Values> {
    const rows = JSON.parse(data) as number[][];
    if (rows.length !== this.names.length) {
      throw new Error(`k6 dashboard event has ${rows.length} metrics, expected ${this.names.length} (${this.names.join(", ")})`);
    }
    const out = new Map<string, Values>();
    rows.forEach((row, i) => {
      const name = this.names[i]!;
      if (row.length === 0) return;
      const keys = this.aggregates[this.types.get(name)!] ?? [];
      out.set(name, Object.fromEntries(keys.map((k, j) => [k, row[j] ?? 0])));
    });
    return out;
  }
}

function timestampOf(data: string): number {
  const v = (JSON.parse(data) as number[][])[0]?.[0];
  if (typeof v !== "number") throw new Error(`k6 dashboard event without a timestamp: ${data.slice(0, 100)}`);
  return v;
}

function latency(v: Values | undefined): TLatency {
  if (!v) return { avg: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };
  return {
    avg: v.avg ?? 0,
    p50: v.med ?? 0,
    p90: v["p(90)"] ?? 0,
    p95: v["p(95)"] ?? 0,
    p99: v["p(99)"] ?? 0,
    max: v.max ?? 0,
  };
}

function backends(m: Map<string, Values>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, v] of m) {
    if (name.startsWith(BACKEND_PREFIX) && name.endsWith("}")) {
      out[name.slice(BACKEND_PREFIX.length, -1)] = v.count ?? 0;
    }
  }
  return out;
}

const subValue = (name: string, prefix: string): string | undefined =>
  name.startsWith(prefix) && name.endsWith("}") ? name.slice(prefix.length, -1) : undefined;

/** The per-backend sub-metrics of one event: requests, errors by kind and the latency of each backend's responses. */
function backendStatsOf(m: Map<string, Values>): TBackendStats {
  const out: TBackendStats = {};
  const of = (name: string) => (out[name] ??= { requests: 0, errors: {}, latencyMs: null });
  for (const [name, v] of m) {
    const reqs = subValue(name, REQS_PREFIX);
    if (reqs !== undefined) {
      of(reqs).requests = v.count ?? 0;
      continue;
    }
    const failed = subValue(name, ERRORS_PREFIX);
    if (failed !== undefined) {
      const cut = failed.indexOf(BACKEND_ERROR_SEPARATOR);
      const kind = failed.slice(0, cut) as ErrorKind;
      if (cut < 0 || !ERROR_KINDS.includes(kind)) continue;
      const errors = of(failed.slice(cut + 1)).errors;
      errors[kind] = (errors[kind] ?? 0) + (v.count ?? 0);
      continue;
    }
    const timed = subValue(name, LATENCY_PREFIX);
    if (timed !== undefined) of(timed).latencyMs = { avg: v.avg ?? 0, max: v.max ?? 0, p95: v["p(95)"] ?? 0 };
  }
  return out;
}
