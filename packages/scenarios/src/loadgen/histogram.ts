import { TLatencyHistogram } from "../contract/latency";
import { round } from "../analysis/stats";

/*
 * Mergeable latency histograms: the log-linear slots sl-wrk keeps (packages/images/contexts/wrk/
 * sl-wrk.patch, SL_SUB_BITS 7) and the lab's k6 output fills (packages/images/xk6-scalelab), over
 * whole microseconds: exact below 256 us, then 128 slots per doubling, so a slot is under 1/128 of
 * its values wide and its middle within 1/256 (0.4 %) of any value in it. Histograms of any
 * generator merge by adding counts; percentiles read from a merged histogram are the percentiles
 * of all the requests together within that precision (not an average or a bound).
 *
 * Libraries considered (npm, 2026-11-26): hdr-histogram-js 3.0.1 (July 2025; HdrHistogram with 2
 * significant digits has these very slots, but reads a percentile as the top of its slot, not the
 * middle sl-wrk prints) and @datadog/sketches-js 2.1.1 (DDSketch: log buckets only, not sl-wrk's).
 * Neither is used: the slots are fixed by sl-wrk's C code and must come out the same in C, Go and
 * TypeScript, the libraries' wire forms (HdrHistogram's compressed base64, DDSketch's protobuf) are
 * opaque in the JSON lines, and what is needed here (slot, add, nearest-rank percentile) is a few lines.
 */

/** A load generator's second or whole run, with its latencies as a mergeable histogram when it gave one. */
export type WithHistogram<T> = T & { histogram?: TLatencyHistogram };

export const HISTOGRAM_SUB_BITS = 7;
/** The relative precision of a percentile read from a histogram: 1/256 of the value (plus 1 us for k6's rounding to whole us). */
export const HISTOGRAM_PRECISION = 1 / (2 << HISTOGRAM_SUB_BITS);
const LINEAR = 2 << HISTOGRAM_SUB_BITS;

/** The slot of a latency in whole microseconds (sl-wrk's sl_slot). */
export function slotOf(us: number): number {
  if (!Number.isInteger(us) || us < 0) throw new Error(`a latency must be whole microseconds >= 0, got ${us}`);
  if (us < LINEAR) return us;
  const shift = Math.floor(Math.log2(us)) - HISTOGRAM_SUB_BITS;
  // log2 of a float may round across a power of two: settle it on the integer.
  const s = us >= 2 ** (shift + HISTOGRAM_SUB_BITS + 1) ? shift + 1 : us < 2 ** (shift + HISTOGRAM_SUB_BITS) ? shift - 1 : shift;
  return s * 2 ** HISTOGRAM_SUB_BITS + Math.floor(us / 2 ** s);
}

/** The middle of a slot in microseconds (sl-wrk's sl_slot_value): within 1/256 of any latency in it. */
export function slotValue(slot: number): number {
  if (slot < LINEAR) return slot;
  const shift = Math.floor(slot / 2 ** HISTOGRAM_SUB_BITS) - 1;
  const low = (slot - shift * 2 ** HISTOGRAM_SUB_BITS) * 2 ** shift;
  return low + Math.floor(2 ** shift / 2);
}

/** A histogram of latencies in milliseconds (rounded to whole microseconds, as the k6 output does). */
export function histogramOf(latenciesMs: Iterable<number>): TLatencyHistogram {
  const out: TLatencyHistogram = {};
  for (const ms of latenciesMs) {
    const key = String(slotOf(Math.max(0, Math.round(ms * 1000))));
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** Adds the counts. */
export function mergeHistograms(parts: readonly TLatencyHistogram[]): TLatencyHistogram {
  const out: TLatencyHistogram = {};
  for (const h of parts) for (const [slot, n] of Object.entries(h)) if (n > 0) out[slot] = (out[slot] ?? 0) + n;
  return out;
}

export function histogramCount(h: TLatencyHistogram): number {
  return Object.values(h).reduce((n, c) => n + c, 0);
}

export type HistogramPercentiles = { p50: number; p90: number; p95: number; p99: number; max: number };

/**
 * Nearest-rank percentiles in ms (the smallest latency with at least p % of the requests at or
 * below it, as sl-wrk's samples) and the max, each the middle of its slot; null for no latency.
 */
export function histogramPercentiles(h: TLatencyHistogram): HistogramPercentiles | null {
  const slots = Object.entries(h)
    .filter(([, n]) => n > 0)
    .map(([slot, n]) => [Number(slot), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const count = slots.reduce((n, [, c]) => n + c, 0);
  if (count === 0) return null;
  const ps = [50, 90, 95, 99] as const;
  const at: number[] = [];
  let seen = 0;
  for (const [slot, n] of slots) {
    seen += n;
    while (at.length < ps.length && seen * 100 >= ps[at.length]! * count) at.push(slotValue(slot));
  }
  const ms = (us: number) => round(us / 1000, 3);
  return { p50: ms(at[0]!), p90: ms(at[1]!), p95: ms(at[2]!), p99: ms(at[3]!), max: ms(slotValue(slots[slots.length - 1]![0])) };
}

/** Nearest-rank percentile p (0–100] of exact values: what a histogram's percentile approximates. */
export function exactPercentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error("no values");
  return sorted[Math.max(0, Math.ceil((p * sorted.length) / 100) - 1)]!;
}
