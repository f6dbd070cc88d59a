import { TRunSummary } from "../contract/results";
import { EXPERIMENT_LIMITS } from "../experiments/experiments";
import { Better, COMPARE_FIGURES, CompareFigure } from "./compare";
import { compareSamples } from "./experiment-stats";
import { TFinding } from "./findings";

/**
 * A compare with a verdict. Runs that share one definition (topology, workload and fault timeline:
 * an experiment variant's repetitions, or a run the user repeated) are one side with repetitions;
 * each side is compared with the baseline's side by the experiments' statistics (Welch's t on the
 * logs, ./experiment-stats.ts). A side of one run has no spread to test against, so its difference
 * is given as it is, labelled `cannot_tell`, never as better or worse.
 */

/** The fields of a run that define what it measures (its name and its actual fault times do not). */
export type RunDefinition = { topology: unknown; workload: unknown; faults: unknown[] };

export type GroupableRun = {
  id: string;
  name: string | null;
  status: string;
  topology: unknown;
  workload: unknown;
  faults: readonly unknown[];
  summary: TRunSummary | null;
  findings: readonly TFinding[];
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A fault as defined, without what happened when it was applied (`actual`). */
const faultDefinition = (f: unknown): unknown => {
  if (!isPlainObject(f)) return f;
  const { actual: _actual, ...def } = f;
  return def;
};

export function definitionOf(run: Pick<GroupableRun, "topology" | "workload" | "faults">): RunDefinition {
  return { topology: run.topology, workload: run.workload, faults: run.faults.map(faultDefinition) };
}

/** JSON with object keys sorted (undefined fields left out), so equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : isPlainObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .filter((k) => v[k] !== undefined)
              .sort()
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return JSON.stringify(sorted(value)) ?? "undefined";
}

export const definitionKey = (def: RunDefinition): string => canonicalJson(def);

export type RunGroup = {
  /** "A", "B", … in order of first appearance among the compared runs. */
  id: string;
  label: string;
  runIds: string[];
  /** The runs whose figures count: succeeded, with a summary. */
  counted: string[];
};

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
export const groupLetter = (i: number): string => (i < LETTERS.length ? LETTERS[i]! : `G${i + 1}`);

const runLabel = (r: Pick<GroupableRun, "id" | "name">) => r.name ?? `run ${r.id.slice(0, 8)}`;

export const isCounted = (r: Pick<GroupableRun, "status" | "summary">) => r.status === "succeeded" && r.summary !== null;

/** The compared runs as sides: one per distinct definition, in order of first appearance. */
export function groupRuns(runs: readonly GroupableRun[]): RunGroup[] {
  const byKey = new Map<string, GroupableRun[]>();
  for (const r of runs) {
    const key = definitionKey(definitionOf(r));
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  return [...byKey.values()].map((members, i) => {
    const names = new Set(members.map(runLabel));
    return {
      id: groupLetter(i),
      label: names.size === 1 ? [...names][0]! : runLabel(members[0]!),
      runIds: members.map((r) => r.id),
      counted: members.filter(isCounted).map((r) => r.id),
    };
  });
}

/**
 * better / worse: a significant difference (p < 0.05) in the figure's direction; not_distinguishable:
 * tested, not significant; cannot_tell: a side has one run, so the difference is not tested;
 * unknown: no ratio (a side has no value, or a value of 0 among others).
 */
export const GROUP_VERDICTS = ["better", "worse", "not_distinguishable", "cannot_tell", "unknown"] as const;
export type GroupVerdict = (typeof GROUP_VERDICTS)[number];

export type GroupComparison = {
  group: string;
  /** Runs with a value on this side and on the baseline's. */
  n: number;
  baselineN: number;
  /** This side / the baseline's, of geometric means (of the values with one run per side). */
  ratio: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  pValue: number | null;
  verdict: GroupVerdict;
  /** "+12.3 % (95 % CI +5.1 % to +19.8 %, p = 0.004)", "+12.0 %: one run per side cannot tell a difference from noise". */
  text: string;
};

export type VerdictRow = {
  key: string;
  label: string;
  unit: CompareFigure["unit"];
  better: Exclude<Better, "none">;
  comparisons: GroupComparison[];
};

const MINUS = "\u2212";

/** A ratio as a signed percentage: 1.123 → "+12.3 %", 0.6 → "−40.0 %". */
export function signedPercent(ratio: number): string {
  const pct = (ratio - 1) * 100;
  const digits = Math.abs(pct) >= 100 ? 0 : 1;
  const text = Math.abs(pct).toFixed(digits);
  const zero = Number(text) === 0;
  return `${pct < 0 && !zero ? MINUS : "+"}${text} %`;
}

const formatP = (p: number) => (p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`);

function singleSides(baselineN: number, n: number): string {
  if (baselineN === 1 && n === 1) return "one run per side";
  return baselineN === 1 ? "one run on the baseline's side" : "one run on this side";
}

/** One side against the baseline's, for one figure. */
export function compareSides(
  baseline: readonly number[],
  side: readonly number[],
  better: Exclude<Better, "none">,
): Omit<GroupComparison, "group"> {
  const sizes = { n: side.length, baselineN: baseline.length };
  const none = { ratio: null, ciLow: null, ciHigh: null, pValue: null };
  if (baseline.length === 0 || side.length === 0) {
    const which = baseline.length === 0 ? "the baseline's side" : "this side";
    return { ...sizes, ...none, verdict: "unknown", text: `no value on ${which}` };
  }
  const all = [...baseline, ...side];
  if (all.every((v) => v === all[0])) {
    // Equal in every run (0 errors on both sides, say): no ratio of logs needed.
    const tested = baseline.length >= 2 && side.length >= 2;
    return {
      ...sizes,
      ...none,
      ratio: 1,
      verdict: tested ? "not_distinguishable" : "cannot_tell",
      text: tested ? "equal in every run" : `equal: ${singleSides(sizes.baselineN, sizes.n)} cannot tell a difference from noise`,
    };
  }
  const cmp = compareSamples(baseline, side);
  if (cmp.pValue !== null) {
    const direction = cmp.ratio > 1 === (better === "higher") ? "better" : "worse";
    const ci = `95 % CI ${signedPercent(cmp.ciLow)} to ${signedPercent(cmp.ciHigh)}`;
    return {
      ...sizes,
      ratio: cmp.ratio,
      ciLow: cmp.ciLow,
      ciHigh: cmp.ciHigh,
      pValue: cmp.pValue,
      verdict: cmp.significant ? direction : "not_distinguishable",
      text: `${signedPercent(cmp.ratio)} (${ci}, ${formatP(cmp.pValue)})`,
    };
  }
  if (cmp.ratio !== null) {
    return {
      ...sizes,
      ...none,
      ratio: cmp.ratio,
      verdict: "cannot_tell",
      text: `differs by ${signedPercent(cmp.ratio)}: ${singleSides(sizes.baselineN, sizes.n)} cannot tell a difference from noise`,
    };
  }
  // A value of 0 (or below) among others: a ratio to or of it means nothing.
  const nonPositive = all.find((v) => !(v > 0));
  const text = nonPositive !== undefined ? `not compared as a ratio: a run has ${nonPositive}` : `not compared: ${cmp.reason}`;
  return { ...sizes, ...none, verdict: "unknown", text };
}

/** The figures that are a score (higher or lower is better); the others are context. */
export const VERDICT_FIGURES = COMPARE_FIGURES.filter((f): f is CompareFigure & { better: Exclude<Better, "none"> } => f.better !== "none");

/** Each figure's verdict for every side against the baseline's side (the side of `baselineRun`). */
export function groupVerdicts(
  runs: readonly GroupableRun[],
  groups: readonly RunGroup[],
  baselineRun: string,
  figures: readonly (CompareFigure & { better: Exclude<Better, "none"> })[] = VERDICT_FIGURES,
): VerdictRow[] {
  const byId = new Map(runs.map((r) => [r.id, r]));
  const base = groups.find((g) => g.runIds.includes(baselineRun));
  if (!base) throw new Error(`baseline run ${baselineRun} is in no group`);
  const valuesOf = (g: RunGroup, f: CompareFigure) =>
    g.counted.map((id) => f.value(byId.get(id)!.summary!)).filter((v): v is number => v !== null && Number.isFinite(v));
  return figures.map((f) => ({
    key: f.key,
    label: f.label,
    unit: f.unit,
    better: f.better,
    comparisons: groups
      .filter((g) => g.id !== base.id)
      .map((g) => ({ group: g.id, ...compareSides(valuesOf(base, f), valuesOf(g, f), f.better) })),
  }));
}

export type ReasonCell = { level: TFinding["level"]; message: string } | null;
export type ReasonRow = {
  code: string;
  /** One per compared run, in their order: the run's finding of this code, or null. */
  cells: ReasonCell[];
  /** Held by some sides and not by others: a reason one side came out differently. */
  differs: boolean;
};

/**
 * The runs' findings side by side, one row per finding code (in the order the runs give them, most
 * telling first), so a finding one side has and the other lacks reads as a reason.
 */
export function reasonRows(runs: readonly Pick<GroupableRun, "id" | "findings">[], groups: readonly RunGroup[]): ReasonRow[] {
  const codes: string[] = [];
  for (const r of runs) for (const f of r.findings) if (!codes.includes(f.code)) codes.push(f.code);
  return codes.map((code) => {
    const cells = runs.map((r): ReasonCell => {
      const f = r.findings.find((x) => x.code === code);
      return f ? { level: f.level, message: f.message } : null;
    });
    const held = new Map(runs.map((r, i) => [r.id, cells[i] !== null]));
    const sides = groups.map((g) => g.runIds.some((id) => held.get(id)));
    return { code, cells, differs: groups.length > 1 && new Set(sides).size > 1 };
  });
}

/**
 * The smallest patch that turns `from` into `to` under the experiments' merge (objects field by
 * field, anything else replaced, `null` removing a field): what differs, and only that.
 */
export function definitionPatch(from: Record<string, unknown>, to: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    const old = from[key];
    if (isPlainObject(old) && isPlainObject(value)) {
      const inner = definitionPatch(old, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (canonicalJson(old) !== canonicalJson(value)) {
      patch[key] = value;
    }
  }
  for (const key of Object.keys(from)) if (from[key] !== undefined && to[key] === undefined) patch[key] = null;
  return patch;
}

export const REPEAT_REPETITIONS = 3;

export type RepeatExperiment = {
  name: string;
  base: Record<string, unknown>;
  variants: { name: string; patch: Record<string, unknown> }[];
  repetitions: number;
  baseline: string;
};

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/**
 * An experiment that runs each compared side's definition `repetitions` times, the baseline's side
 * as the base and its baseline; the other sides are variants patched from it.
 */
export function repeatExperiment(
  runs: readonly GroupableRun[],
  groups: readonly RunGroup[],
  baselineRun: string,
  repetitions = REPEAT_REPETITIONS,
): RepeatExperiment {
  const byId = new Map(runs.map((r) => [r.id, r]));
  const base = groups.find((g) => g.runIds.includes(baselineRun));
  if (!base) throw new Error(`baseline run ${baselineRun} is in no group`);
  const ordered = [base, ...groups.filter((g) => g !== base)];
  const defOf = (g: RunGroup) => definitionOf(byId.get(g.runIds[0]!)!) as unknown as Record<string, unknown>;
  const baseDef = defOf(base);
  const variantName = (g: RunGroup) => clip(`${g.id}: ${g.label}`, EXPERIMENT_LIMITS.variantName.max);
  return {
    name: clip(`Repeat: ${ordered.map((g) => g.label).join(" vs ")}`, EXPERIMENT_LIMITS.name.max),
    base: baseDef,
    variants: ordered.map((g) => ({ name: variantName(g), patch: g === base ? {} : definitionPatch(baseDef, defOf(g)) })),
    repetitions,
    baseline: variantName(base),
  };
}
