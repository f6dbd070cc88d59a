import { imbalanceIndex } from "@scalelab/scenarios/analysis";
import { LOADGEN_ROLE, replicaHost } from "@scalelab/scenarios/components";
import { BALANCER_KEY, NO_ANSWER_KEY } from "@scalelab/scenarios/contract";
import { ERROR_KINDS, type ErrorKind } from "@scalelab/scenarios/contract";
import type { TFigureSample } from "@scalelab/scenarios/messages";
import { loadgenUse, median, type TLoadgenUse } from "@scalelab/scenarios/analysis";
import type { TSample } from "@scalelab/scenarios/contract";
import type { TLiveEvent } from "~/server/runs/live";
import type { TContainerSeconds, TRunView } from "~/server/runs/types";

/** A timeline event; `id` is its row's, the same in the snapshot and in the live message. */
export type LogLine = { id: string; level: string; step: string; message: string };

export type LiveState = {
  run: TRunView | null;
  /** Ordered by `t`: one per second, or min and max per bucket for the seconds the snapshot had downsampled. */
  samples: TSample[];
  /** How many seconds were measured (more than `samples` when the snapshot was downsampled). */
  seconds: number;
  containers: TContainerSeconds[];
  /** Each container's median CPU over every second, as the snapshot had it; null once a live second came after it. */
  cpuMedian: Record<string, number> | null;
  /** The components' figures (pool, broker, downstream), ordered by `t`. */
  figures: TFigureSample[];
  log: LogLine[];
};

export const initialLive: LiveState = { run: null, samples: [], seconds: 0, containers: [], cpuMedian: null, figures: [], log: [] };

const MAX_LOG = 200;

/**
 * The log with `line` in it, once: the page subscribes before it reads the stored events, so an
 * event stored in between comes in the snapshot and again as a live message. Kept in id order (the
 * order the worker stored them), at most MAX_LOG, the newest.
 */
export function mergeLog(log: readonly LogLine[], lines: readonly LogLine[]): LogLine[] {
  const byId = new Map(log.map((l) => [l.id, l]));
  for (const l of lines) byId.set(l.id, l);
  return [...byId.values()].sort((a, b) => compareIds(a.id, b.id)).slice(-MAX_LOG);
}

/** Decimal row ids in numeric order (they may outgrow a double's exact range: compared as text by length first). */
const compareIds = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

function upsertByT<T extends { t: number }>(list: T[], item: T): T[] {
  const last = list[list.length - 1];
  if (!last || last.t < item.t) return [...list, item];
  const i = list.findIndex((x) => x.t >= item.t);
  const next = [...list];
  if (list[i]!.t === item.t) next[i] = item;
  else next.splice(i, 0, item);
  return next;
}

/** Folds the `runs.live` stream into what the run page shows. A snapshot replaces everything (reconnects). */
export function liveReducer(state: LiveState, ev: TLiveEvent): LiveState {
  switch (ev.type) {
    case "snapshot":
      return {
        run: ev.run,
        samples: [...ev.samples].sort((a, b) => a.t - b.t),
        seconds: ev.seconds,
        containers: ev.containers,
        cpuMedian: ev.cpuMedian,
        figures: [...ev.figures].sort((a, b) => a.t - b.t),
        log: mergeLog(
          [],
          ev.events.map(({ id, level, step, message }) => ({ id, level, step, message })),
        ),
      };
    case "run":
      return { ...state, run: ev.run };
    case "status":
      if (!state.run) return state;
      return {
        ...state,
        run: { ...state.run, status: ev.status, step: ev.step, stepDetail: ev.stepDetail ?? null, error: ev.error ?? null },
      };
    case "sample": {
      const last = state.samples[state.samples.length - 1];
      const seconds = !last || last.t < ev.sample.t ? state.seconds + 1 : state.seconds;
      return { ...state, samples: upsertByT(state.samples, ev.sample), seconds };
    }
    case "containers":
      return { ...state, containers: upsertByT(state.containers, { t: ev.t, containers: ev.containers }), cpuMedian: null };
    case "figures":
      return { ...state, figures: upsertByT(state.figures, { t: ev.t, figures: ev.figures }) };
    case "event":
      return { ...state, log: mergeLog(state.log, [{ id: ev.id, level: ev.level, step: ev.step, message: ev.message }]) };
    case "fault": {
      const fault = state.run?.faults[ev.index];
      if (!state.run || !fault) return state;
      const faults = state.run.faults.map((f, i) => (i === ev.index ? { ...fault, actual: ev.actual } : f));
      return { ...state, run: { ...state.run, faults } };
    }
  }
}

export type ThroughputPoint = { t: number; rps: number; errors: number };
export type LatencyPoint = { t: number; p50: number | null; p90: number | null; p95: number | null; p99: number | null };

export function throughputSeries(samples: readonly TSample[]): ThroughputPoint[] {
  return samples.map((s) => ({ t: s.t, rps: s.requests, errors: s.errors }));
}

export function latencySeries(samples: readonly TSample[]): LatencyPoint[] {
  return samples.map((s) => ({
    t: s.t,
    p50: s.latencyMs?.p50 ?? null,
    p90: s.latencyMs?.p90 ?? null,
    p95: s.latencyMs?.p95 ?? null,
    p99: s.latencyMs?.p99 ?? null,
  }));
}

/** Rows `{ t, [key]: value }` with one key per container (or backend), and the keys in a stable order. */
export type WideSeries = { keys: string[]; rows: ({ t: number } & Record<string, number>)[] };

export function containerCpuSeries(seconds: readonly TContainerSeconds[], name: (c: string) => string = (c) => c): WideSeries {
  const keys = new Set<string>();
  const rows = seconds.map((s) => {
    const row: { t: number } & Record<string, number> = { t: s.t };
    for (const c of s.containers) {
      const key = name(c.container);
      keys.add(key);
      row[key] = c.cpuPct;
    }
    return row;
  });
  return { keys: [...keys].sort(), rows };
}

/** Who answered, in the per-backend chart's order: the replicas, then the balancer itself, then nobody. */
const backendOrder = (name: string) => (name === NO_ANSWER_KEY ? 2 : name === BALANCER_KEY ? 1 : 0);
const sortBackends = (names: Iterable<string>): string[] =>
  [...names].sort((a, b) => backendOrder(a) - backendOrder(b) || a.localeCompare(b, "en", { numeric: true }));

/**
 * Requests per backend and second. From `backendStats` where samples carry it (every request,
 * failed ones included, with the balancer's own answers and the requests nobody answered as their
 * own series), else from the answered counts. Every backend has a value in every second, 0 when it
 * took nothing, so a stopped replica drops to 0 instead of leaving a gap.
 */
export function backendSeries(samples: readonly TSample[]): WideSeries {
  const stats = samples.some((s) => s.backendStats);
  if (!stats && !samples.some((s) => s.backends)) return { keys: [], rows: [] };
  const keys = new Set<string>();
  const rows = samples.map((s) => {
    const row: { t: number } & Record<string, number> = { t: s.t };
    const counts = stats
      ? Object.fromEntries(Object.entries(s.backendStats ?? {}).map(([name, b]) => [name, b.requests]))
      : (s.backends ?? {});
    for (const [name, n] of Object.entries(counts)) {
      keys.add(name);
      row[name] = n;
    }
    return row;
  });
  const sorted = sortBackends(keys);
  for (const row of rows) for (const k of sorted) row[k] ??= 0;
  return { keys: sorted, rows };
}

/** The replicas' host names (what X-Backend says), for a run of `replicas`. */
export const replicaNames = (replicas: number): string[] => Array.from({ length: replicas }, (_, i) => replicaHost(i));

/**
 * Imbalance per second: max/mean of the answered requests over every replica (1 = even; null:
 * nothing answered). The server's figure where the sample has one (a downsampled sample's counts
 * are extremes of different seconds, their max/mean means nothing).
 */
export function imbalanceSeries(samples: readonly TSample[], replicas: number): { t: number; imbalance: number | null }[] {
  const names = replicaNames(replicas);
  return samples.map((s) => ({ t: s.t, imbalance: s.imbalance ?? imbalanceIndex(s.backends ?? {}, names) ?? null }));
}

/** Errors per second by kind (502, 503, 504, timeout, conn, other), for the kinds the run had; empty when samples carry none. */
export function errorKindSeries(samples: readonly TSample[]): { keys: ErrorKind[]; rows: ({ t: number } & Record<string, number>)[] } {
  if (!samples.some((s) => s.errorKinds)) return { keys: [], rows: [] };
  const keys = ERROR_KINDS.filter((k) => samples.some((s) => s.errorKinds?.[k]));
  return { keys, rows: samples.map((s) => ({ t: s.t, ...Object.fromEntries(keys.map((k) => [k, s.errorKinds?.[k] ?? 0])) })) };
}

export type FigureRow = { t: number } & Record<string, number | null>;

/** One row per second that has any of `keys`, with a column per key (null where that second lacks it). */
export function figureRows(samples: readonly TFigureSample[], keys: readonly string[]): FigureRow[] {
  return samples
    .filter((s) => keys.some((k) => k in s.figures))
    .map((s) => {
      const row: FigureRow = { t: s.t };
      for (const k of keys) row[k] = s.figures[k] ?? null;
      return row;
    });
}

/** Each container's CPU (% of one core) in the latest second, or its median over the seconds when `over` is "run". */
export function cpuByContainer(seconds: readonly TContainerSeconds[], over: "latest" | "run"): Record<string, number> {
  const picked = over === "latest" ? seconds.slice(-1) : seconds;
  const readings = new Map<string, number[]>();
  for (const s of picked) {
    for (const c of s.containers) {
      const list = readings.get(c.container);
      if (list) list.push(c.cpuPct);
      else readings.set(c.container, [c.cpuPct]);
    }
  }
  return Object.fromEntries([...readings].map(([name, values]) => [name, median(values)]));
}

/** The load generator's CPU use so far, by the same rule the worker stores with the finished run. */
export function liveLoadgenUse(seconds: readonly TContainerSeconds[], loadgenCpus: number): TLoadgenUse | undefined {
  const readings = seconds.flatMap((s) => s.containers.filter((c) => c.role === LOADGEN_ROLE).map((c) => c.cpuPct));
  return loadgenUse(readings, loadgenCpus);
}
