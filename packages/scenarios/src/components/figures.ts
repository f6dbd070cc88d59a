import { TTestbedStats } from "./service/testbed-stats";
import { FigureInput, FigureSeries, StatsReading } from "./types";
import { median, round } from "../analysis/stats";

/** Sum of one number over the readings of a role. */
export function total(readings: readonly StatsReading[] | undefined, role: string, pick: (s: TTestbedStats) => number): number {
  let sum = 0;
  for (const r of readings ?? []) if (r.role === role) sum += pick(r.stats);
  return sum;
}

/**
 * What a counter grew by since the previous second. Per container, so a container that restarted
 * (its counter went back) counts from zero instead of giving a negative rate.
 */
export function growth(input: FigureInput, role: string, pick: (s: TTestbedStats) => number): number {
  const before = new Map((input.previous ?? input.baseline).filter((r) => r.role === role).map((r) => [r.container, pick(r.stats)]));
  let sum = 0;
  for (const r of input.current) {
    if (r.role !== role) continue;
    const now = pick(r.stats);
    const was = before.get(r.container) ?? 0;
    sum += now >= was ? now - was : now;
  }
  return sum;
}

export type TPoolSummary = {
  size: number;
  maxBusy: number | null;
  medianBusy: number | null;
  maxQueued: number;
  medianQueued: number;
  rejected: number;
};
export type TBrokerSummary = {
  produced: number;
  consumed: number;
  backlogAtStart: number;
  maxLag: number;
  lagAtEnd: number;
  drainSeconds: number | null;
};

const values = (series: FigureSeries, key: string) => series.flatMap((s) => (key in s.figures ? [s.figures[key]!] : []));

/**
 * Pool figures over the load (seconds < loadSeconds); undefined when no pool figure was recorded.
 * Busy workers are read once a second, an instant: short requests finish between the readings, so
 * a run that served requests while every reading saw 0 busy was not sampled meaningfully, and its
 * busy figures are null (unknown), not 0. `served`: requests answered during the load.
 */
export function poolSummary(series: FigureSeries, loadSeconds: number, served: number): TPoolSummary | undefined {
  const load = series.filter((s) => s.t < loadSeconds);
  const busy = values(load, "pool.busy");
  if (busy.length === 0) return undefined;
  const queued = values(load, "pool.queued");
  const seen = busy.some((b) => b > 0) || served === 0;
  return {
    size: Math.max(0, ...values(load, "pool.size")),
    maxBusy: seen ? Math.max(...busy) : null,
    medianBusy: seen ? round(median(busy), 1) : null,
    maxQueued: Math.max(0, ...queued),
    medianQueued: queued.length ? round(median(queued), 1) : 0,
    rejected: values(load, "pool.rejected").reduce((a, b) => a + b, 0),
  };
}

/**
 * The broker over the run: events produced from the load's start and consumed from then on (to
 * the end of the drain), the backlog already waiting when the load started (the warm-up's events:
 * consumed ≤ produced + backlogAtStart), the largest lag, the lag when the load ended, and how long
 * the consumers took to catch up after it (null: not within the drain window). Counts come from the
 * cumulative counters, so nothing depends on every second being polled. Undefined without a broker.
 */
export function brokerSummary(
  series: FigureSeries,
  loadSeconds: number,
  totals: { produced: number; consumed: number; backlogAtStart: number },
): TBrokerSummary | undefined {
  const lags = series.filter((s) => "broker.lag" in s.figures);
  if (lags.length === 0) return undefined;
  const during = lags.filter((s) => s.t < loadSeconds);
  const atEnd = during.at(-1) ?? lags[0]!;
  const drained = lags.find((s) => s.t >= loadSeconds && s.figures["broker.lag"] === 0);
  const lagAtEnd = atEnd.figures["broker.lag"]!;
  return {
    produced: totals.produced,
    consumed: totals.consumed,
    backlogAtStart: totals.backlogAtStart,
    maxLag: Math.max(...lags.map((s) => s.figures["broker.lag"]!)),
    lagAtEnd,
    drainSeconds: lagAtEnd === 0 ? 0 : drained ? drained.t - loadSeconds + 1 : null,
  };
}
