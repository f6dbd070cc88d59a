import { TRunSummary, TSample } from "../contract/results";
import { TLatency } from "../contract/latency";
import { addErrors, mergeBackendStats } from "../contract/backends";
import { TErrorCounts } from "../contract/faults";
import { errorRate, round } from "../analysis/stats";

/*
 * Several load-generator containers report one series. Counts (requests, errors, per-backend hits,
 * dropped iterations) add up. Percentiles cannot be merged from percentiles: k6 reports no
 * histogram, so the merged p50…p99 and max are the worst instance's (an upper bound of the true
 * percentile, exact for max), and the mean is the request-weighted mean (exact). The summary says so.
 * Per backend (./backends.ts) the same: counts and errors by kind add, the mean is weighted by
 * requests, the max is the largest, p95 the worst instance's.
 */

type Weighted = { requests: number; latencyMs: TLatency | null };

function worstLatency(parts: readonly Weighted[]): TLatency | null {
  const measured = parts.filter((p): p is { requests: number; latencyMs: TLatency } => p.latencyMs !== null);
  if (measured.length === 0) return null;
  const weight = measured.reduce((n, p) => n + p.requests, 0);
  const worst = (key: keyof TLatency) => Math.max(...measured.map((p) => p.latencyMs[key]));
  const avg = weight > 0 ? measured.reduce((sum, p) => sum + p.latencyMs.avg * p.requests, 0) / weight : worst("avg");
  return { avg: round(avg), p50: worst("p50"), p90: worst("p90"), p95: worst("p95"), p99: worst("p99"), max: worst("max") };
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
export function mergeSamples(parts: readonly TSample[]): TSample {
  if (parts.length === 0) throw new Error("nothing to merge");
  if (parts.length === 1) return parts[0]!;
  const backends = addCounts(parts.map((p) => p.backends));
  const backendStats = mergeBackendStats(parts.map((p) => p.backendStats));
  const errorKinds = addKinds(parts.map((p) => p.errorKinds));
  return {
    t: parts[0]!.t,
    requests: parts.reduce((n, p) => n + p.requests, 0),
    errors: parts.reduce((n, p) => n + p.errors, 0),
    latencyMs: worstLatency(parts),
    ...(backends && { backends }),
    ...(backendStats && { backendStats }),
    ...(errorKinds && { errorKinds }),
  };
}

/** The instances' whole-run figures as one; `percentiles` says how they were merged. */
export function mergeSummaries(parts: readonly TRunSummary[]): TRunSummary {
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
  return {
    requests,
    rps: round(parts.reduce((n, p) => n + p.rps, 0)),
    errors,
    errorRate: errorRate(errors, requests),
    latencyMs: worstLatency(parts)!,
    ...(parts[0]!.durationSeconds !== undefined && { durationSeconds: parts[0]!.durationSeconds }),
    ...(backends && { backends }),
    ...(errorKinds && { errorKinds }),
    ...(backendStats && { backendStats }),
    ...(dropped !== undefined && { droppedIterations: dropped }),
  };
}

/**
 * Joins the per-second samples of `instances` load generators into one series, in order: second t
 * is given out once every instance has reported it (or a later second) or has ended. With one
 * instance samples pass straight through.
 */
export class SampleMerger {
  private readonly pending = new Map<number, TSample[]>();
  private readonly last: number[];
  private readonly ended: boolean[];

  constructor(private readonly instances: number) {
    this.last = Array.from({ length: instances }, () => -1);
    this.ended = Array.from({ length: instances }, () => false);
  }

  push(instance: number, sample: TSample): TSample[] {
    if (this.instances === 1) return [sample];
    this.last[instance] = Math.max(this.last[instance]!, sample.t);
    this.pending.set(sample.t, [...(this.pending.get(sample.t) ?? []), sample]);
    return this.ready();
  }

  /** The instance will report nothing more; returns the seconds this completes. */
  end(instance: number): TSample[] {
    this.ended[instance] = true;
    return this.ready();
  }

  private ready(): TSample[] {
    const out: TSample[] = [];
    for (const t of [...this.pending.keys()].sort((a, b) => a - b)) {
      if (!this.last.every((last, i) => last >= t || this.ended[i])) break;
      out.push(mergeSamples(this.pending.get(t)!));
      this.pending.delete(t);
    }
    return out;
  }
}
