import { TRunSummary, TSample } from "../contract/results";
import { COMPONENTS, SETUP_FIELDS as COMPONENT_SETUP } from "../components/registry";
import { SetupField, SetupRun } from "../components/types";
import { BALANCER_ROLE, SERVICE_ROLE } from "../names";
import { networkFaultTargets } from "../components/fault-proxy";
import { netnsTargets } from "../components/netns";
import { faultLabel, faultSchedule, TFault } from "../contract/faults";

/**
 * Side-by-side comparison of runs, as in the write-ups of EXPERIMENTS.md: each figure per run
 * and its ratio to the baseline run (the first unless chosen). Every figure comes from one run's own
 * summary; percentiles are never averaged or merged across runs or seconds.
 */

/** "none": context that explains a result (CPU use), not a score. */
export type Better = "higher" | "lower" | "none";

export type CompareFigure = {
  key: string;
  label: string;
  unit: "" | "req/s" | "ms" | "%" | "/s" | "B/s" | "ms/s";
  better: Better;
  value: (s: TRunSummary) => number | null;
};

type RoleUse = NonNullable<TRunSummary["containers"]>[string];

const roleFigure = (role: string, pick: (u: RoleUse) => number | undefined) => (s: TRunSummary) => {
  const use = s.containers?.[role];
  return use ? (pick(use) ?? null) : null;
};

/**
 * Throttled time (only for a role with a CPU limit: without one it is 0 by construction) and
 * network in and out of one role, per container-second, from the run's summary.
 */
function resourceFigures(role: string, name: string): CompareFigure[] {
  return [
    {
      key: `${role}.throttledMs`,
      label: `${name} time throttled (ms per second)`,
      unit: "ms/s",
      better: "lower",
      value: roleFigure(role, (u) => (u.pctOfLimit === undefined ? undefined : u.throttledMsPerSecond)),
    },
    {
      key: `${role}.netRx`,
      label: `${name} network in (median)`,
      unit: "B/s",
      better: "none",
      value: roleFigure(role, (u) => u.medianNetRxBps),
    },
    {
      key: `${role}.netTx`,
      label: `${name} network out (median)`,
      unit: "B/s",
      better: "none",
      value: roleFigure(role, (u) => u.medianNetTxBps),
    },
  ];
}

/** The service's and the balancer's rows are above; every other role its component names gets CPU and resource rows. */
const FIXED_ROLES = [SERVICE_ROLE, BALANCER_ROLE] as const;

/**
 * The most busy workers a reading saw; null (unknown) when none was sampled meaningfully: null in the
 * summary, or 0 in a run recorded before that while it served requests (every reading fell between them).
 */
export const poolMaxBusy = (s: TRunSummary): number | null => {
  const busy = s.pool?.maxBusy;
  if (busy === undefined || busy === null) return null;
  return busy === 0 && s.requests > 0 ? null : busy;
};

export const COMPARE_FIGURES: readonly CompareFigure[] = [
  { key: "requests", label: "Requests", unit: "", better: "higher", value: (s) => s.requests },
  { key: "rps", label: "Throughput", unit: "req/s", better: "higher", value: (s) => s.rps },
  { key: "errors", label: "Errors", unit: "", better: "lower", value: (s) => s.errors },
  { key: "errorRate", label: "Error rate", unit: "%", better: "lower", value: (s) => s.errorRate * 100 },
  { key: "latency.avg", label: "Latency avg", unit: "ms", better: "lower", value: (s) => s.latencyMs.avg },
  { key: "latency.p50", label: "Latency p50", unit: "ms", better: "lower", value: (s) => s.latencyMs.p50 },
  { key: "latency.p90", label: "Latency p90", unit: "ms", better: "lower", value: (s) => s.latencyMs.p90 },
  { key: "latency.p95", label: "Latency p95", unit: "ms", better: "lower", value: (s) => s.latencyMs.p95 },
  { key: "latency.p99", label: "Latency p99", unit: "ms", better: "lower", value: (s) => s.latencyMs.p99 },
  { key: "latency.max", label: "Latency max", unit: "ms", better: "lower", value: (s) => s.latencyMs.max },
  {
    key: "loadgen.cpu",
    label: "Load generator CPU (median, % of its limit)",
    unit: "%",
    better: "lower",
    value: (s) => s.loadgen?.medianCpuPct ?? null,
  },
  {
    key: "app.cpu",
    label: "Replica CPU (median, % of one core)",
    unit: "%",
    better: "none",
    value: (s) => s.containers?.app?.medianCpuPct ?? null,
  },
  {
    key: "app.cpuOfLimit",
    label: "Replica CPU (median, % of its limit)",
    unit: "%",
    better: "none",
    value: (s) => s.containers?.app?.pctOfLimit ?? null,
  },
  {
    key: "app.throttled",
    label: "Replica CPU throttling (periods/s, of 10)",
    unit: "/s",
    better: "lower",
    value: (s) => s.containers?.app?.throttledPerSecond ?? null,
  },
  ...resourceFigures(SERVICE_ROLE, "Replica"),
  {
    key: "lb.cpu",
    label: "Balancer CPU (median, % of one core)",
    unit: "%",
    better: "none",
    value: (s) => s.containers?.lb?.medianCpuPct ?? null,
  },
  ...resourceFigures(BALANCER_ROLE, "Balancer"),
  { key: "pool.maxBusy", label: "Busy workers (max)", unit: "", better: "none", value: poolMaxBusy },
  { key: "pool.maxQueued", label: "Queued requests (max)", unit: "", better: "lower", value: (s) => s.pool?.maxQueued ?? null },
  { key: "pool.rejected", label: "Rejected (queue full)", unit: "", better: "lower", value: (s) => s.pool?.rejected ?? null },
  { key: "broker.produced", label: "Events produced", unit: "", better: "none", value: (s) => s.broker?.produced ?? null },
  { key: "broker.consumed", label: "Events consumed", unit: "", better: "none", value: (s) => s.broker?.consumed ?? null },
  { key: "broker.maxLag", label: "Consumer lag (max)", unit: "", better: "lower", value: (s) => s.broker?.maxLag ?? null },
  {
    key: "broker.lagAtEnd",
    label: "Consumer lag at the end of the load",
    unit: "",
    better: "lower",
    value: (s) => s.broker?.lagAtEnd ?? null,
  },
  // Every other role its component names (the downstream, the broker, the store): its CPU and resources.
  ...COMPONENTS.flatMap((c) => Object.entries(c.presentation ?? {}))
    .sort(([, a], [, b]) => a.column - b.column || (a.row ?? 0) - (b.row ?? 0))
    .filter(([role, p]) => p.name !== undefined && !(FIXED_ROLES as readonly string[]).includes(role))
    .flatMap(([role, p]): CompareFigure[] => [
      {
        key: `${role}.cpu`,
        label: `${p.name} CPU (median, % of one core)`,
        unit: "%",
        better: "none",
        value: (s) => s.containers?.[role]?.medianCpuPct ?? null,
      },
      ...resourceFigures(role, p.name!),
    ]),
];

export type Verdict = "baseline" | "better" | "worse" | "same" | "unknown" | "neutral";

export type CompareCell = {
  runId: string;
  value: number | null;
  /** value / baseline value; null when either is missing or the baseline is 0 and this is not. */
  ratio: number | null;
  verdict: Verdict;
};

export type CompareRow = {
  key: string;
  label: string;
  unit: CompareFigure["unit"];
  better: Better;
  cells: CompareCell[];
};

export type ComparableRun = { id: string; summary: TRunSummary | null };

/** Differences within this fraction of the baseline count as "same". */
export const SAME_TOLERANCE = 0.02;

export function ratioTo(baseline: number | null, value: number | null): number | null {
  if (baseline === null || value === null) return null;
  if (baseline === 0) return value === 0 ? 1 : null;
  return value / baseline;
}

export function verdictOf(ratio: number | null, better: Better): Exclude<Verdict, "baseline"> {
  if (ratio === null) return "unknown";
  if (better === "none") return "neutral";
  if (Math.abs(ratio - 1) <= SAME_TOLERANCE) return "same";
  return ratio > 1 === (better === "higher") ? "better" : "worse";
}

/** `baseline`: the index of the run the ratios are to (the first by default). */
export function compareRuns(
  runs: readonly ComparableRun[],
  figures: readonly CompareFigure[] = COMPARE_FIGURES,
  baseline = 0,
): CompareRow[] {
  return figures.map((f) => {
    const values = runs.map((r) => (r.summary ? f.value(r.summary) : null));
    const base = values[baseline] ?? null;
    return {
      key: f.key,
      label: f.label,
      unit: f.unit,
      better: f.better,
      cells: runs.map((r, i) => {
        const value = values[i] ?? null;
        if (i === baseline) return { runId: r.id, value, ratio: value === null ? null : 1, verdict: "baseline" as const };
        const ratio = ratioTo(base, value);
        return { runId: r.id, value, ratio, verdict: verdictOf(ratio, f.better) };
      }),
    };
  });
}

/** "2.6×", "0.45×", "12×"; an em dash when there is no ratio. */
export function formatRatio(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return "—";
  if (ratio >= 10) return `${Math.round(ratio)}×`;
  if (ratio >= 1) return `${ratio.toFixed(1)}×`;
  return `${ratio.toFixed(2)}×`;
}

export type SetupRow = { key: string; label: string; values: string[]; differs: boolean };

/** A fault as the setup shows it (a stored one carries its actual time too, which the setup ignores). */
type SetupFault = Pick<TFault, "at" | "action" | "target" | "ms" | "jitterMs" | "percent" | "kbps">;

/** Runs stored before faults existed have none. */
type Setup = SetupRun;

const faultParams = (f: SetupFault): string =>
  f.action === "delay"
    ? ` (${f.ms} ms${f.jitterMs ? ` ± ${f.jitterMs} ms` : ""})`
    : f.action === "loss"
      ? ` (${f.percent} %)`
      : f.action === "bandwidth"
        ? ` (${f.kbps} kbps)`
        : "";

/** The fault timeline in the order it is applied: "stop app-2 @30s, start app-2 @90s". */
const faultTimeline = (faults: readonly SetupFault[] = []): string =>
  faults.length === 0
    ? "none"
    : faultSchedule(faults)
        .map(({ fault: f }) => `${faultLabel(f)}${faultParams(f)}`)
        .join(", ");

/** Where the network-fault proxy stood: in front of each target of a network fault, and nowhere without one. */
/** Where the lab put its fault plumbing: "none", or the targets, e.g. `in front of app-2, lb-0`. */
function placement(targets: readonly { role: string; index: number }[], prefix: string): string {
  return targets.length === 0 ? "none" : `${prefix}${targets.map((t) => `${t.role}-${t.index}`).join(", ")}`;
}

/** The setup rows: every component's, then the fault timeline's. */
const SETUP: readonly SetupField[] = [
  ...COMPONENT_SETUP,
  { key: "faults", label: "Faults", show: (s) => faultTimeline(s.faults) },
  {
    key: "faultProxy",
    label: "Network-fault proxy",
    show: (s) => placement(networkFaultTargets({ faults: s.faults ?? [] }), "in front of "),
  },
  {
    key: "netnsHolders",
    label: "Network holders",
    show: (s) => placement(netnsTargets({ faults: s.faults ?? [] }), "keep the address of stopped "),
  },
];

/** The configuration of each run side by side, flagging what differs between them. */
export function setupRows(runs: readonly Setup[]): SetupRow[] {
  return SETUP.map((f) => {
    const values = runs.map(f.show);
    return { key: f.key, label: f.label, values, differs: new Set(values).size > 1 };
  });
}

export type SeriesRow = { t: number } & Record<string, number | null>;

/**
 * One row per second with one column per run (keyed by run id), for overlaid charts.
 * Seconds a run has no bucket for are null, so a line shows a gap rather than a fake zero.
 */
export function overlaySeries(
  runs: readonly { id: string; samples: readonly TSample[] }[],
  pick: (s: TSample) => number | null,
): SeriesRow[] {
  const byT = new Map<number, SeriesRow>();
  for (const run of runs) {
    for (const s of run.samples) {
      let row = byT.get(s.t);
      if (!row) {
        row = { t: s.t } as SeriesRow;
        for (const r of runs) row[r.id] = null;
        byT.set(s.t, row);
      }
      row[run.id] = pick(s);
    }
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}
