import { EXPERIMENT_METRICS } from "@scalelab/scenarios/analysis";
import {
  applyPatch,
  estimateSeconds,
  EXPERIMENT_LIMITS,
  expandExperiment,
  ZExperimentCreate,
  type TExperimentCreate,
} from "@scalelab/scenarios/experiments";
import { aboutDuration } from "./experiment-format";
import { formatMs, formatPct, formatRps } from "./format";
import { toFieldIssues, type FieldIssue } from "./issues";

/**
 * The presets page: a preset's "quick check" (other repetitions, a shorter load) turned into the
 * body of `presets.run`, with its run count and duration worked out here by the same code the
 * server plans with (so the estimate follows the inputs as typed, and what the server would refuse
 * for the definition itself is said before Run); the write-up's figures as table rows.
 */

type PresetLike = { name: string; experiment: TExperimentCreate };

/** The quick check's inputs as typed; empty = the preset's own value. */
export type QuickCheck = { repetitions: string; duration: string };

/** `presets.run`'s input (ZPresetRunInput). */
export type PresetRunBody = { name: string; repetitions?: number; patch?: Record<string, unknown> };

/** The input a problem belongs to: the repetitions, the load duration, or neither (then it is listed under them only). */
export type QuickField = "repetitions" | "duration";
export type PresetIssue = FieldIssue & { field: QuickField | null };

export type PresetPlan =
  | {
      ok: true;
      body: PresetRunBody;
      runs: number;
      estimatedSeconds: number;
      repetitions: number;
      durationSeconds: number | null;
      changed: boolean;
    }
  | { ok: false; issues: PresetIssue[] };

const WHOLE = /^\d+$/;

/** "12 runs · about 6 min". */
export function runsAndDuration(runs: number, seconds: number): string {
  return `${runs} run${runs === 1 ? "" : "s"} · ${aboutDuration(seconds)}`;
}

/** The load durations of a preset's variants: one number when they all share it (every preset does), else the range. */
export function presetDurations(experiment: TExperimentCreate): { min: number; max: number } | null {
  const out = expandExperiment(experiment);
  if (!out.ok || out.variants.length === 0) return null;
  const seconds = out.variants.map((v) => v.run.workload.durationSeconds);
  return { min: Math.min(...seconds), max: Math.max(...seconds) };
}

/** What the server's (or the local check's) issue path is about: `repetitions`, `base.workload.durationSeconds`, `patch…`. */
export function quickFieldOf(path: string): QuickField | null {
  const p = path.replace(/\[(\d+)\]/g, ".$1");
  if (p === "repetitions") return "repetitions";
  if (p === "patch" || p.startsWith("patch.") || p === "base.workload.durationSeconds") return "duration";
  return null;
}

export const placeIssues = (issues: readonly FieldIssue[]): PresetIssue[] => {
  const seen = new Set<string>();
  return issues.flatMap((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ ...i, field: quickFieldOf(i.path) }];
  });
};

/** The latest second the base's faults are planned at (0 without faults). */
export function lastFaultSecond(experiment: TExperimentCreate): number {
  const faults = experiment.base.faults;
  if (!Array.isArray(faults)) return 0;
  return faults.reduce<number>((max, f) => {
    const at = (f as { at?: unknown } | null)?.at;
    return typeof at === "number" && at > max ? at : max;
  }, 0);
}

/** With a shorter load, the base's faults that now fall after its end: one issue on the duration instead of one per fault. */
function faultsOutlastLoad(experiment: TExperimentCreate, issues: readonly FieldIssue[]): PresetIssue[] {
  const faults = issues.filter((i) => i.path.startsWith("base.faults."));
  const rest = placeIssues(issues.filter((i) => !i.path.startsWith("base.faults.")));
  if (faults.length === 0) return rest;
  const last = lastFaultSecond(experiment);
  const message =
    last > 0
      ? `this preset's faults go on until ${last} s: the load must last at least ${last + 1} s (or use Copy and change to move them)`
      : faults.map((f) => f.message).join("; ");
  return [{ path: "base.workload.durationSeconds", message, field: "duration" }, ...rest];
}

/**
 * The quick check as a `presets.run` body, with the plan it makes: its runs and estimated seconds,
 * or the problems with it (a value that is no whole number, a load too short for the preset's
 * faults, too many runs). Host limits (CPUs, memory) are the server's to check.
 */
export function planPresetRun(preset: PresetLike, q: QuickCheck): PresetPlan {
  const issues: FieldIssue[] = [];
  const { min, max } = EXPERIMENT_LIMITS.repetitions;
  const repsText = q.repetitions.trim();
  const durationText = q.duration.trim();
  let repetitions = preset.experiment.repetitions;
  if (repsText !== "") {
    const n = Number(repsText);
    if (!WHOLE.test(repsText) || n < min || n > max)
      issues.push({ path: "repetitions", message: `repetitions must be a whole number between ${min} and ${max}` });
    else repetitions = n;
  }
  let durationSeconds: number | null = null;
  if (durationText !== "") {
    // Its range is the run schema's to say (below, with the preset's faults checked against it).
    if (!WHOLE.test(durationText))
      issues.push({ path: "base.workload.durationSeconds", message: "the load duration must be a whole number of seconds" });
    else durationSeconds = Number(durationText);
  }
  if (issues.length > 0) return { ok: false, issues: placeIssues(issues) };

  const patch = durationSeconds !== null ? { workload: { durationSeconds } } : undefined;
  const parsed = ZExperimentCreate.safeParse({
    ...preset.experiment,
    base: patch ? applyPatch(preset.experiment.base, patch) : preset.experiment.base,
    repetitions,
  });
  if (!parsed.success) return { ok: false, issues: placeIssues(toFieldIssues(parsed.error.issues)) };
  const out = expandExperiment(parsed.data);
  if (!out.ok)
    return { ok: false, issues: durationSeconds !== null ? faultsOutlastLoad(preset.experiment, out.issues) : placeIssues(out.issues) };

  const body: PresetRunBody = {
    name: preset.name,
    ...(repetitions !== preset.experiment.repetitions && { repetitions }),
    ...(patch && { patch }),
  };
  return {
    ok: true,
    body,
    runs: out.runs,
    estimatedSeconds: estimateSeconds(out.variants, parsed.data.repetitions, parsed.data.settleSeconds),
    repetitions,
    durationSeconds,
    changed: body.repetitions !== undefined || body.patch !== undefined,
  };
}

/** The variants of a preset in a line: "blocking, async", "1 replica, 3 replicas × connections 1, 3". */
export function variantsLine(experiment: TExperimentCreate): string {
  const names = (experiment.variants ?? []).map((v) => v.name).join(", ");
  const axes = (experiment.sweep ?? []).map((a) => `${a.field.split(".").at(-1)} ${a.values.map(String).join(", ")}`);
  return [names, ...axes].filter(Boolean).join(" × ") || "the base alone";
}

export type ReferenceTable = {
  /** What each column is: "req/s", "latency avg", in the order the write-up's figures first name them. */
  figures: string[];
  /** One row per variant: its figure for each column (null where the write-up has none) and its notes. */
  rows: { variant: string; values: (string | null)[]; note: string | null }[];
};

function figureOf(metricKey: string): { figure: string; format: (v: number) => string } {
  const metric = EXPERIMENT_METRICS.find((m) => m.key === metricKey);
  if (!metric) return { figure: metricKey, format: (v) => String(v) };
  if (metric.unit === "ms") return { figure: `latency ${metric.label}`, format: formatMs };
  if (metric.unit === "%") return { figure: "error rate", format: formatPct };
  return { figure: metric.label, format: formatRps };
}

/** The write-up's figures as a table: a row per variant, a column per metric (values with their unit where it is not req/s), notes joined. */
export function referenceTable(reference: readonly { variant: string; metric: string; value: number; note?: string }[]): ReferenceTable {
  const figures: string[] = [];
  const rows: { variant: string; values: Map<string, string>; notes: string[] }[] = [];
  for (const r of reference) {
    const { figure, format } = figureOf(r.metric);
    if (!figures.includes(figure)) figures.push(figure);
    let row = rows.find((x) => x.variant === r.variant);
    if (!row) rows.push((row = { variant: r.variant, values: new Map(), notes: [] }));
    row.values.set(figure, format(r.value));
    if (r.note) row.notes.push(r.note);
  }
  return {
    figures,
    rows: rows.map((r) => ({
      variant: r.variant,
      values: figures.map((f) => r.values.get(f) ?? null),
      note: r.notes.length > 0 ? r.notes.join("; ") : null,
    })),
  };
}
