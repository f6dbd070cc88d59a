import { TContainerSample, TContainerStat, TFigureSample } from "../contract/messages";
import { TBackendSecond, TBackendStats } from "../contract/backends";
import { TErrorCounts } from "../contract/faults";
import { TSample } from "../contract/results";

/*
 * Min/max per bucket: a long series drawn with at most `points` points per line, so that a chart of
 * a 1 h run stays fast, while every peak and dip stays visible (an average or LTTB alone would flatten
 * a 1-second spike). The series' time span is cut into equal buckets of whole seconds, at most
 * points / 2 of them, and each bucket gives at most two rows: for a "minmax" column its lowest and
 * its highest value, in the order they came; for a "max" column (latency percentiles: the worst is
 * what matters) its highest in both; for a "mean" column the mean, weighted by another column when
 * asked (a second's average latency by its requests). Where the bucket has a primary column (the
 * requests per second, a container's CPU), the two rows sit at the seconds of its minimum and its
 * maximum, else at the bucket's first and last second: another column's extremes are drawn up to a
 * bucket's width from their own second. A column without any value in a bucket is null there (a
 * gap wider than a bucket stays a gap); seconds missing altogether stay missing.
 */

/** How many points a downsampled series may be asked for (`?points=`). */
export const DOWNSAMPLE_POINTS = { min: 100, max: 10_000 } as const;

export type ColumnRule = "minmax" | "max" | { mean: true; weight?: string };

export type DownsampleOptions = {
  /** The rule of a column (a key other than `t` whose values are numbers or null); "minmax" when not given. */
  rule?: (key: string) => ColumnRule;
  /** The column whose minimum and maximum place a bucket's two rows in time. */
  primary?: string;
};

type Row = { t: number };

/**
 * `rows` (ordered by `t`) with at most `points` rows; the rows themselves when there are no more
 * than that. Keys that are not numbers (a container's name) are the source row's.
 */
export function downsampleRows<R extends Row>(rows: readonly R[], points: number, opts: DownsampleOptions = {}): R[] {
  if (!Number.isInteger(points) || points < 2) throw new RangeError(`points must be a whole number of at least 2, not ${points}`);
  if (rows.length <= points) return [...rows];
  const rule = opts.rule ?? (() => "minmax");
  const first = rows[0]!.t;
  const last = rows[rows.length - 1]!.t;
  const buckets = Math.floor(points / 2);
  // Whole seconds, so that the bucket edges stay put while a live series grows by a second.
  const width = Math.max(1, Math.ceil((last - first + 1) / buckets));
  const out: R[] = [];
  let start = 0;
  while (start < rows.length) {
    const edge = first + Math.floor((rows[start]!.t - first) / width + 1) * width;
    let end = start + 1;
    while (end < rows.length && rows[end]!.t < edge) end++;
    out.push(...reduceBucket(rows, start, end, rule, opts.primary));
    start = end;
  }
  return out;
}

/** One column over one bucket: its extremes (the first of equals), and whether it had any value. */
type Acc = { lo: number; loAt: number; hi: number; hiAt: number; seen: boolean };

function reduceBucket<R extends Row>(
  rows: readonly R[],
  start: number,
  end: number,
  rule: (key: string) => ColumnRule,
  primary: string | undefined,
): R[] {
  if (end - start === 1) return [rows[start]!];
  // One pass over the bucket: every numeric or null column's extremes.
  const accs = new Map<string, Acc>();
  for (let i = start; i < end; i++) {
    const row = rows[i] as unknown as Record<string, unknown>;
    for (const key in row) {
      if (key === "t") continue;
      const v = row[key];
      if (typeof v !== "number" && v !== null) continue;
      let acc = accs.get(key);
      if (!acc) accs.set(key, (acc = { lo: Infinity, loAt: -1, hi: -Infinity, hiAt: -1, seen: false }));
      if (v === null) continue;
      acc.seen = true;
      if (v < acc.lo) [acc.lo, acc.loAt] = [v, i];
      if (v > acc.hi) [acc.hi, acc.hiAt] = [v, i];
    }
  }

  // The two rows' sources: the primary column's extremes in time order, else the bucket's ends.
  let a = start;
  let b = end - 1;
  const p = primary === undefined ? undefined : accs.get(primary);
  if (p?.seen && p.loAt !== p.hiAt) [a, b] = p.loAt < p.hiAt ? [p.loAt, p.hiAt] : [p.hiAt, p.loAt];
  const early: Record<string, unknown> = { ...rows[a]! };
  const late: Record<string, unknown> = { ...rows[b]! };

  for (const [key, acc] of accs) {
    const r = rule(key);
    if (!acc.seen) {
      early[key] = null;
      late[key] = null;
    } else if (r === "minmax") {
      const loFirst = acc.loAt <= acc.hiAt;
      early[key] = loFirst ? acc.lo : acc.hi;
      late[key] = loFirst ? acc.hi : acc.lo;
    } else if (r === "max") {
      early[key] = acc.hi;
      late[key] = acc.hi;
    } else {
      const v = mean(rows, start, end, key, r.weight);
      early[key] = v;
      late[key] = v;
    }
  }
  return [early as R, late as R];
}

const value = (row: Row, key: string): number | null => {
  const v = (row as Record<string, unknown>)[key];
  return typeof v === "number" ? v : null;
};

function mean(rows: readonly Row[], start: number, end: number, key: string, weight: string | undefined): number | null {
  let sum = 0;
  let total = 0;
  for (let i = start; i < end; i++) {
    const v = value(rows[i]!, key);
    if (v === null) continue;
    const w = weight === undefined ? 1 : (value(rows[i]!, weight) ?? 0);
    sum += v * w;
    total += w;
  }
  if (total > 0) return sum / total;
  // Weights all 0 (no requests): the plain mean of what there is.
  return weight === undefined ? null : mean(rows, start, end, key, undefined);
}

/* The API's series, flattened into rows, downsampled and rebuilt. */

const LATENCY_KEYS = ["avg", "p50", "p90", "p95", "p99", "max"] as const;
const SEP = "\u0000";

function sampleRow(s: TSample): Row & Record<string, number | null> {
  const row: Row & Record<string, number | null> = { t: s.t, requests: s.requests, errors: s.errors };
  for (const k of LATENCY_KEYS) row[`lat${SEP}${k}`] = s.latencyMs ? s.latencyMs[k] : null;
  if (s.imbalance !== undefined) row.imbalance = s.imbalance;
  for (const [name, n] of Object.entries(s.backends ?? {})) row[`backends${SEP}${name}`] = n;
  for (const [kind, n] of Object.entries(s.errorKinds ?? {})) row[`errorKinds${SEP}${kind}`] = n;
  for (const [name, b] of Object.entries(s.backendStats ?? {})) {
    row[`bs${SEP}${name}${SEP}requests`] = b.requests;
    for (const [kind, n] of Object.entries(b.errors)) row[`bs${SEP}${name}${SEP}errors${SEP}${kind}`] = n;
    row[`bs${SEP}${name}${SEP}lat${SEP}avg`] = b.latencyMs?.avg ?? null;
    row[`bs${SEP}${name}${SEP}lat${SEP}max`] = b.latencyMs?.max ?? null;
    if (b.latencyMs?.p95 !== undefined) row[`bs${SEP}${name}${SEP}lat${SEP}p95`] = b.latencyMs.p95;
  }
  return row;
}

function sampleRule(key: string): ColumnRule {
  const parts = key.split(SEP);
  if (parts[0] === "lat") return parts[1] === "avg" ? { mean: true, weight: "requests" } : "max";
  if (key === "imbalance") return "max";
  if (parts[0] === "bs" && parts[2] === "lat") return parts[3] === "avg" ? { mean: true } : "max";
  return "minmax";
}

function fromSampleRow(row: Record<string, number | null>): TSample {
  const lat = Object.fromEntries(LATENCY_KEYS.map((k) => [k, row[`lat${SEP}${k}`] ?? null]));
  const out: TSample = {
    t: row.t!,
    requests: Math.round(row.requests ?? 0),
    errors: Math.round(row.errors ?? 0),
    latencyMs: lat.avg === null ? null : (lat as Record<(typeof LATENCY_KEYS)[number], number>),
  };
  if (typeof row.imbalance === "number") out.imbalance = row.imbalance;
  const backends: Record<string, number> = {};
  const errorKinds: Record<string, number> = {};
  const stats: Record<string, TBackendSecond> = {};
  for (const [key, v] of Object.entries(row)) {
    const parts = key.split(SEP);
    if (parts.length < 2 || v === null) continue;
    if (parts[0] === "backends") backends[parts[1]!] = v;
    else if (parts[0] === "errorKinds") errorKinds[parts[1]!] = v;
    else if (parts[0] === "bs") {
      const b = (stats[parts[1]!] ??= { requests: 0, errors: {}, latencyMs: null });
      if (parts[2] === "requests") b.requests = Math.round(v);
      else if (parts[2] === "errors") (b.errors as Record<string, number>)[parts[3]!] = v;
      else if (parts[2] === "lat") {
        b.latencyMs ??= { avg: 0, max: 0 };
        (b.latencyMs as Record<string, number>)[parts[3]!] = v;
      }
    }
  }
  if (Object.keys(backends).length > 0) out.backends = backends;
  if (Object.keys(errorKinds).length > 0) out.errorKinds = errorKinds as TErrorCounts;
  if (Object.keys(stats).length > 0) out.backendStats = stats as TBackendStats;
  return out;
}

/**
 * A run's load samples with at most `points` per series: requests and errors (also per backend and
 * per kind) as their minimum and maximum per bucket, latency percentiles as their maximum, the
 * average latency weighted by the requests. Fewer samples than `points`: the samples as they are.
 */
export function downsampleSamples(samples: readonly TSample[], points: number): TSample[] {
  if (samples.length <= points) return [...samples];
  const rows = downsampleRows(samples.map(sampleRow), points, { rule: sampleRule, primary: "requests" });
  return rows.map((r) => fromSampleRow(r as Record<string, number | null>));
}

/**
 * Each container's resources with at most `points` per container: CPU, memory, throttling and
 * network each as its minimum and maximum per bucket, the two rows at the seconds of the CPU's
 * extremes. Ordered by second, then container, as the full series is.
 */
export function downsampleContainers<C extends TContainerSample>(samples: readonly C[], points: number): C[] {
  const byContainer = new Map<string, C[]>();
  for (const s of samples) {
    const list = byContainer.get(s.container);
    if (list) list.push(s);
    else byContainer.set(s.container, [s]);
  }
  const out: C[] = [];
  for (const list of byContainer.values()) {
    // Absent optional figures stay absent: only what a row has is a column.
    out.push(...downsampleRows(list, points, { primary: "cpuPct" }).map((r) => dropNulls(r)));
  }
  return out.sort((a, b) => a.t - b.t || (a.container < b.container ? -1 : a.container > b.container ? 1 : 0));
}

function dropNulls<C extends object>(row: C): C {
  const entries = Object.entries(row).filter(([, v]) => v !== null);
  return Object.fromEntries(entries) as C;
}

/** The components' figures with at most `points` per figure, each as its minimum and maximum per bucket. */
export function downsampleFigures(samples: readonly TFigureSample[], points: number): TFigureSample[] {
  if (samples.length <= points) return [...samples];
  const rows = downsampleRows(
    samples.map((s) => ({ t: s.t, ...s.figures })),
    points,
  );
  return rows.map(({ t, ...figures }) => ({
    t,
    figures: Object.fromEntries(Object.entries(figures).filter((e): e is [string, number] => typeof e[1] === "number")),
  }));
}

/**
 * Every container's resources, second by second (the run page's form: one entry per second with
 * each container's reading), with at most `points` seconds: all containers share the buckets and
 * their two seconds (each bucket's first and last), so that no line has gaps where another
 * container's extremes fell. Each figure as its minimum and maximum per bucket.
 */
export function downsampleContainerSeconds<C extends TContainerStat>(
  seconds: readonly { t: number; containers: readonly C[] }[],
  points: number,
): { t: number; containers: C[] }[] {
  if (seconds.length <= points) return seconds.map((s) => ({ t: s.t, containers: [...s.containers] }));
  const roles = new Map<string, string>();
  const rows = seconds.map((s) => {
    const row: Row & Record<string, number | null> = { t: s.t };
    for (const c of s.containers) {
      roles.set(c.container, c.role);
      for (const [key, v] of Object.entries(c)) if (typeof v === "number") row[`${c.container}${SEP}${key}`] = v;
    }
    return row;
  });
  return downsampleRows(rows, points).map((row) => {
    const byContainer = new Map<string, Record<string, unknown>>();
    for (const [key, v] of Object.entries(row)) {
      const cut = key.indexOf(SEP);
      if (cut < 0 || typeof v !== "number") continue;
      const name = key.slice(0, cut);
      let c = byContainer.get(name);
      if (!c) byContainer.set(name, (c = { container: name, role: roles.get(name) }));
      c[key.slice(cut + 1)] = v;
    }
    // A container without a reading in the bucket is absent there, as in a second it had none.
    const containers = [...byContainer.values()].filter((c) => typeof c.cpuPct === "number") as C[];
    return { t: row.t, containers };
  });
}
