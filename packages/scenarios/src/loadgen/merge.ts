import { TRunSummary, TSample } from "../contract/results";
import { TLatency, TLatencyHistogram } from "../contract/latency";
import { addErrors, mergeBackendStats } from "../contract/backends";
import { TErrorCounts } from "../contract/faults";
import { errorRate, round } from "../analysis/stats";
import { histogramPercentiles, mergeHistograms, WithHistogram } from "./histogram";

export type { WithHistogram } from "./histogram";

/*
 * Several load-generator containers report one series. Counts (requests, errors, per-backend hits,
 * dropped iterations) add up, the mean is the request-weighted mean and max the largest (exact).
 * Percentiles cannot be merged from percentiles: when every part carries its latency histogram
 * (./histogram.ts: sl-wrk's lines, the k6 output's), p50…p99 are read from the sum of the
 * histograms, the percentiles of all the requests together within 0.4 %, and the merged part keeps
 * the summed histogram; when a part has none (an older sl-wrk, a k6 second whose histogram line did
 * not come), they are the worst instance's (an upper bound of the true percentile). The summary
 * says which (percentilesMerge). Per backend (../contract/backends.ts) the same: counts and errors
 * by kind add, the mean is weighted by requests, the max is the largest, p95 the worst instance's.
 */

type Weighted = { requests: number; latencyMs: TLatency | null; histogram?: TLatencyHistogram };

function mergeLatency(parts: readonly Weighted[]): { latencyMs: TLatency | null; histogram?: TLatencyHistogram } {
  const measured = parts.filter((p): p is Weighted & { latencyMs: TLatency } => p.latencyMs !== null);
  const histogram = parts.every((p) => p.histogram !== undefined) ? mergeHistograms(parts.map((p) => p.histogram!)) : undefined;
  if (measured.length === 0) return { latencyMs: null, ...(histogram && { histogram }) };
  const weight = measured.reduce((n, p) => n + p.requests, 0);
  const worst = (key: keyof TLatency) => Math.max(...measured.map((p) => p.latencyMs[key]));
  const avg = weight > 0 ? measured.reduce((sum, p) => sum + p.latencyMs.avg * p.requests, 0) / weight : worst("avg");
  const read = histogram && histogramPercentiles(histogram);
  if (read) {
    return {
      latencyMs: { avg: round(avg), p50: read.p50, p90: read.p90, p95: read.p95, p99: read.p99, max: worst("max") },
      histogram: histogram!,
    };
  }
  return { latencyMs: { avg: round(avg), p50: worst("p50"), p90: worst("p90"), p95: worst("p95"), p99: worst("p99"), max: worst("max") } };
}

/** How mergeSummaries merged these parts' percentiles: "merged" when every part had its histogram. */
export function percentilesMerge(parts: readonly { histogram?: TLatencyHistogram }[]): "merged" | "worst instance" {
  return parts.length > 0 && parts.every((p) => p.histogram !== undefined) ? "merged" : "worst instance";
}

/** Without the histogram: what is stored and published. */
export function withoutHistogram<T extends object>(part: WithHistogram<T>): T {
  const { histogram: _histogram, ...rest } = part;
  return rest as T;
}

function addCounts(maps: readonly (Record<string, number> | undefined)[]): Record<string, number> | undefined {
  if (maps.every((m) => m === undefined)) return undefined;
  const out: Record<string, number> = {};
  for (const m of maps) for (const [k, v] of Object.entries(m ?? {})) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Errors by kind of the parts that have them; undefined when none has. */
function addKinds(parts: readonly (TErrorCounts | undefined)[]): TErrorCounts | undefined {
  return parts.every((p) => p === undefined) ? undefined : addErrors(parts);
}

/** One second of several instances as one sample. */
export function mergeSamples(parts: readonly WithHistogram<TSample>[]): WithHistogram<TSample> {
  if (parts.length === 0) throw new Error("nothing to merge");
  if (parts.length === 1) return parts[0]!;
  const backends = addCounts(parts.map((p) => p.backends));
  const backendStats = mergeBackendStats(parts.map((p) => p.backendStats));
  const errorKinds = addKinds(parts.map((p) => p.errorKinds));
  return {
    t: parts[0]!.t,
    requests: parts.reduce((n, p) => n + p.requests, 0),
    errors: parts.reduce((n, p) => n + p.errors, 0),
    ...mergeLatency(parts),
    ...(backends && { backends }),
    ...(backendStats && { backendStats }),
    ...(errorKinds && { errorKinds }),
  };
}

/** The instances' whole-run figures as one; `percentiles` says how they were merged. */
export function mergeSummaries(parts: readonly WithHistogram<TRunSummary>[]): WithHistogram<TRunSummary> {
  if (parts.length === 0) throw new Error("nothing to merge");
  if (parts.length === 1) return parts[0]!;
  const requests = parts.reduce((n, p) => n + p.requests, 0);
  const errors = parts.reduce((n, p) => n + p.errors, 0);
  const backends = addCounts(parts.map((p) => p.backends));
  const dropped = parts.some((p) => p.droppedIterations !== undefined)
    ? parts.reduce((n, p) => n + (p.droppedIterations ?? 0), 0)
    : undefined;
  const backendStats = mergeBackendStats(parts.map((p) => p.backendStats));
  const errorKinds = addKinds(parts.map((p) => p.errorKinds));
  const { latencyMs, histogram } = mergeLatency(parts);
  return {
    requests,
    rps: round(parts.reduce((n, p) => n + p.rps, 0)),
    errors,
    errorRate: errorRate(errors, requests),
    latencyMs: latencyMs!,
    ...(parts[0]!.durationSeconds !== undefined && { durationSeconds: parts[0]!.durationSeconds }),
    ...(backends && { backends }),
    ...(errorKinds && { errorKinds }),
    ...(backendStats && { backendStats }),
    ...(dropped !== undefined && { droppedIterations: dropped }),
    ...(histogram && { histogram }),
  };
}

/**
 * Joins the per-second samples of `instances` load generators into one series, in order: second t
 * is given out once every instance has reported it (or a later second) or has ended. With one
 * instance samples pass straight through.
 */
export class SampleMerger {
  private readonly pending = new Map<number, WithHistogram<TSample>[]>();
  private readonly last: number[];
  private readonly ended: boolean[];

  constructor(private readonly instances: number) {
    this.last = Array.from({ length: instances }, () => -1);
    this.ended = Array.from({ length: instances }, () => false);
  }

  push(instance: number, sample: WithHistogram<TSample>): WithHistogram<TSample>[] {
    if (this.instances === 1) return [sample];
    this.last[instance] = Math.max(this.last[instance]!, sample.t);
    this.pending.set(sample.t, [...(this.pending.get(sample.t) ?? []), sample]);
    return this.ready();
  }

  /** The instance will report nothing more; returns the seconds this completes. */
  end(instance: number): WithHistogram<TSample>[] {
    this.ended[instance] = true;
    return this.ready();
  }

  private ready(): WithHistogram<TSample>[] {
    const out: WithHistogram<TSample>[] = [];
    for (const t of [...this.pending.keys()].sort((a, b) => a - b)) {
      if (!this.last.every((last, i) => last >= t || this.ended[i])) break;
      out.push(mergeSamples(this.pending.get(t)!));
      this.pending.delete(t);
    }
    return out;
  }
}
