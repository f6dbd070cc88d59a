import { z } from "zod";
import {
  COMPARISON_METRICS,
  comparisonText,
  TComparisonThreshold,
  thresholdFigure,
  thresholdText,
  THRESHOLD_METRICS,
  THRESHOLD_OPS,
  TThresholdsOutcome,
} from "../contract/thresholds";

/** What a comparison threshold reads of the statistics' comparison (experiment-report.ts ZExperimentComparison). */
export type ComparisonFigures = {
  baseline: string;
  variant: string;
  metric: string;
  ratio: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  pValue: number | null;
  reason?: string | undefined;
};

/**
 * An experiment's thresholds as a verdict: each variant's runs against the per-run thresholds
 * (their results come from the runs' own summary.thresholds, evaluated by the worker), and each
 * variant against the baseline for the comparison thresholds, read from the statistics'
 * comparisons (ratio of geometric means, its 95 % CI, Welch's p; nothing recomputed).
 */

export const ZExperimentRunThresholdResult = z.object({
  kind: z.literal("run"),
  variant: z.string(),
  metric: z.enum(THRESHOLD_METRICS),
  op: z.enum(THRESHOLD_OPS),
  value: z.number(),
  /** The variant's worst figure over its succeeded runs (the highest for < and <=, the lowest for > and >=); null when none had it. */
  actual: z.number().nullable(),
  /** Succeeded runs evaluated, and those whose threshold failed. */
  runs: z.number().int(),
  failedRuns: z.number().int(),
  passed: z.boolean(),
});
export type TExperimentRunThresholdResult = z.infer<typeof ZExperimentRunThresholdResult>;

export const ZComparisonThresholdResult = z.object({
  kind: z.literal("comparison"),
  variant: z.string(),
  baseline: z.string(),
  metric: z.enum(COMPARISON_METRICS),
  compare: z.literal("baseline"),
  worseBy: z.number(),
  p: z.number(),
  /** The variant's change against the baseline in % ((ratio − 1) × 100, + = higher); null without a ratio. */
  actual: z.number().nullable(),
  ratio: z.number().nullable().describe("variant / baseline (geometric means)"),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  pValue: z.number().nullable(),
  passed: z.boolean(),
  /** Why it failed or could not be tested. */
  reason: z.string().optional(),
});
export type TComparisonThresholdResult = z.infer<typeof ZComparisonThresholdResult>;

export const ZExperimentThresholdsOutcome = z.object({
  passed: z.boolean().describe("every threshold of every variant passed"),
  results: z.array(z.discriminatedUnion("kind", [ZExperimentRunThresholdResult, ZComparisonThresholdResult])),
});
export type TExperimentThresholdsOutcome = z.infer<typeof ZExperimentThresholdsOutcome>;

/** The statistics' metric key of each comparison metric. */
export const COMPARISON_KEY = {
  rps: "rps",
  p50: "latencyMs.p50",
  p90: "latencyMs.p90",
  p95: "latencyMs.p95",
  p99: "latencyMs.p99",
  max: "latencyMs.max",
} as const satisfies Record<(typeof COMPARISON_METRICS)[number], string>;

/**
 * One comparison threshold for one variant: it fails when the difference is significant at `p` and
 * the variant is worse than the tolerance (rps: ratio < 1 − worseBy/100; latency: ratio > 1 +
 * worseBy/100), and when the comparison could not be tested (it cannot say the variant is no worse).
 */
export function evaluateComparison(
  t: TComparisonThreshold,
  cmp: ComparisonFigures | undefined,
  variant: string,
  baseline: string,
): TComparisonThresholdResult {
  const base = {
    kind: "comparison" as const,
    variant,
    baseline,
    metric: t.metric,
    compare: t.compare,
    worseBy: t.worseBy,
    p: t.p,
  };
  if (!cmp) {
    return {
      ...base,
      actual: null,
      ratio: null,
      ciLow: null,
      ciHigh: null,
      pValue: null,
      passed: false,
      reason: "no comparison with the baseline",
    };
  }
  const figures = { ratio: cmp.ratio, ciLow: cmp.ciLow, ciHigh: cmp.ciHigh, pValue: cmp.pValue };
  const actual = cmp.ratio === null ? null : (cmp.ratio - 1) * 100;
  if (cmp.pValue === null || cmp.ratio === null) {
    return { ...base, ...figures, actual, passed: false, reason: `not tested: ${cmp.reason ?? "no p-value"}` };
  }
  const higherIsWorse = t.metric !== "rps";
  const beyond = higherIsWorse ? cmp.ratio > 1 + t.worseBy / 100 : cmp.ratio < 1 - t.worseBy / 100;
  const significant = cmp.pValue < t.p;
  const passed = !(beyond && significant);
  const pct = Math.abs(actual ?? 0).toFixed(1);
  const reason = passed
    ? undefined
    : `${pct} % ${higherIsWorse ? "higher" : "lower"} than ${base.baseline} (p=${cmp.pValue.toFixed(3)} < ${t.p}), more than ${t.worseBy} %`;
  return { ...base, ...figures, actual, passed, ...(reason && { reason }) };
}

export type ExperimentThresholdsInput = {
  variants: readonly { index: number; name: string }[];
  baseline: number;
  comparisons: readonly ComparisonFigures[];
  comparisonThresholds: readonly TComparisonThreshold[];
  /** Whether the runs have per-run thresholds (their results may not be there yet). */
  runThresholds: boolean;
  /** Each run's variant, status and summary.thresholds (absent when it had none or has not succeeded). */
  runs: readonly { variant: number; status: string; thresholds?: TThresholdsOutcome | undefined }[];
};

const worst = (op: string, values: number[]): number | null =>
  values.length === 0 ? null : op.startsWith("<") ? Math.max(...values) : Math.min(...values);

/** The experiment's verdict; null when it has no threshold at all (none per run, none of comparison). */
export function experimentThresholds(input: ExperimentThresholdsInput): TExperimentThresholdsOutcome | null {
  const results: TExperimentThresholdsOutcome["results"] = [];
  for (const v of input.variants) {
    const outcomes = input.runs.filter((r) => r.variant === v.index && r.status === "succeeded" && r.thresholds).map((r) => r.thresholds!);
    const first = outcomes[0];
    if (!first) continue;
    first.results.forEach((t, i) => {
      const same = outcomes.map((o) => o.results[i]).filter((r) => r && r.metric === t.metric && r.op === t.op && r.value === t.value);
      const actuals = same.map((r) => r!.actual).filter((a): a is number => a !== null);
      const failedRuns = same.filter((r) => !r!.passed).length;
      results.push({
        kind: "run",
        variant: v.name,
        metric: t.metric,
        op: t.op,
        value: t.value,
        actual: worst(t.op, actuals),
        runs: same.length,
        failedRuns,
        passed: failedRuns === 0,
      });
    });
  }
  const base = input.variants.find((v) => v.index === input.baseline);
  if (base) {
    for (const t of input.comparisonThresholds) {
      for (const v of input.variants) {
        if (v.index === base.index) continue;
        const cmp = input.comparisons.find((c) => c.variant === v.name && c.metric === COMPARISON_KEY[t.metric]);
        results.push(evaluateComparison(t, cmp, v.name, base.name));
      }
    }
  }
  if (!input.runThresholds && input.comparisonThresholds.length === 0 && results.length === 0) return null;
  return { passed: results.every((r) => r.passed), results };
}

/** A result's threshold in words: `p95<250`, or `rps no worse than 5 % vs baseline (p < 0.05)`. */
export const experimentThresholdText = (r: TExperimentThresholdsOutcome["results"][number]): string =>
  r.kind === "run" ? thresholdText(r) : comparisonText(r);

const MINUS = "\u2212";
const signed = (pct: number) => `${pct < 0 ? MINUS : "+"}${Math.abs(pct).toFixed(1)} %`;

/** A result's actual figure in words: the variant's worst run's figure, or its change against the baseline with the ratio's CI and p. */
export function experimentThresholdActual(r: TExperimentThresholdsOutcome["results"][number]): string {
  if (r.actual === null) return r.kind === "comparison" && r.reason ? `— (${r.reason})` : "—";
  if (r.kind === "run")
    return `${thresholdFigure(r.metric, r.actual)}${r.runs > 1 ? ` (worst of ${r.runs} runs${r.failedRuns ? `, ${r.failedRuns} failed` : ""})` : ""}`;
  const ci = r.ciLow !== null && r.ciHigh !== null ? `, 95 % CI ${r.ciLow.toFixed(3)}–${r.ciHigh.toFixed(3)}` : "";
  const p = r.pValue !== null ? `, p=${r.pValue.toFixed(3)}` : "";
  return `${signed(r.actual)} (ratio ${r.ratio?.toFixed(3) ?? "—"}${ci}${p})`;
}
