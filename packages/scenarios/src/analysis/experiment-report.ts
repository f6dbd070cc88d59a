import { SCALE_FIELDS } from "../experiments/experiments";
import { TRunSummary } from "../contract/results";
import { TRunStatus } from "../contract/status";
import { z } from "zod";
import { benchstatText, compareSamples, describe, variationWarning } from "./experiment-stats";
import { TSweepAxis } from "../experiments/experiments";
import { fitUsl, uslCurve } from "./usl";
import { USL_MIN_POINTS } from "../experiments/experiments";
import { TComparisonThreshold } from "../contract/thresholds";
import { experimentThresholds, TExperimentThresholdsOutcome } from "./experiment-thresholds";

/**
 * An experiment's statistics from its runs' whole-run figures (never from averaged per-second
 * percentiles): per variant mean, sd, CV and 95 % CI of each metric; each variant against the
 * baseline as a ratio with its CI and p-value; the USL fitted over a sweep of a scale knob.
 */

export const EXPERIMENT_METRICS = [
  { key: "rps", label: "req/s", unit: "req/s", better: "higher" },
  { key: "latencyMs.p50", label: "p50", unit: "ms", better: "lower" },
  { key: "latencyMs.p90", label: "p90", unit: "ms", better: "lower" },
  { key: "latencyMs.p95", label: "p95", unit: "ms", better: "lower" },
  { key: "latencyMs.p99", label: "p99", unit: "ms", better: "lower" },
  { key: "latencyMs.avg", label: "avg", unit: "ms", better: "lower" },
  { key: "latencyMs.max", label: "max", unit: "ms", better: "lower" },
  { key: "errorRate", label: "errors", unit: "%", better: "lower" },
] as const;
export type TMetricKey = (typeof EXPERIMENT_METRICS)[number]["key"];
export const METRIC_KEYS = EXPERIMENT_METRICS.map((m) => m.key) as [TMetricKey, ...TMetricKey[]];

export function metricOf(summary: TRunSummary, key: TMetricKey): number | null {
  if (key === "rps") return summary.rps;
  if (key === "errorRate") return summary.errorRate;
  const v = summary.latencyMs[key.slice("latencyMs.".length) as keyof TRunSummary["latencyMs"]];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export const ZDescription = z.object({
  n: z.number().int(),
  mean: z.number().nullable(),
  sd: z.number().nullable(),
  cv: z.number().nullable().describe("sd / mean"),
  ciLow: z.number().nullable().describe("95 % confidence interval of the mean (Student's t)"),
  ciHigh: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
});

export const ZVariantStatistics = z.object({
  /** Succeeded runs the figures come from. */
  runs: z.number().int(),
  /** Runs of the variant that failed or were interrupted (retries included). */
  failedRuns: z.number().int(),
  metrics: z.record(z.enum(METRIC_KEYS), ZDescription),
  /** Metrics whose repetitions vary by more than 10 % (coefficient of variation). */
  noisy: z.array(z.enum(METRIC_KEYS)),
});
export type TVariantStatistics = z.infer<typeof ZVariantStatistics>;

export const ZExperimentComparison = z.object({
  baseline: z.string(),
  variant: z.string(),
  metric: z.enum(METRIC_KEYS),
  ratio: z.number().nullable().describe("variant / baseline (geometric means)"),
  ciLow: z.number().nullable().describe("95 % confidence interval of the ratio"),
  ciHigh: z.number().nullable(),
  pValue: z.number().nullable().describe("Welch's t-test on the logs; null when it cannot be tested (see reason)"),
  significant: z.boolean(),
  /** benchstat-like: "+12.3% (p=0.004)", or "~ (p=0.41)" when not significant. */
  text: z.string(),
  /** better / worse for this metric when significant, else same. */
  verdict: z.enum(["better", "worse", "same", "unknown"]),
  reason: z.string().optional(),
});
export type TExperimentComparison = z.infer<typeof ZExperimentComparison>;

const ZPoint = z.object({ n: z.number(), x: z.number() });
export const ZUslResult = z.object({
  field: z.string(),
  sigma: z.number().describe("contention"),
  kappa: z.number().describe("coherency"),
  lambda: z.number().describe("throughput of one"),
  peakN: z.number().nullable().describe("√((1−σ)/κ); null when throughput never turns down"),
  peakX: z.number().nullable(),
  /** With no coherency cost (κ = 0): the throughput the curve levels off at, λ/σ; null otherwise. */
  ceilingX: z.number().nullable(),
  r2: z.number().nullable(),
  points: z.array(ZPoint),
  curve: z.array(ZPoint),
});
export type TUslResult = z.infer<typeof ZUslResult>;

export type ExperimentStatisticsInput = {
  variants: readonly { index: number; name: string; axes: Record<string, unknown> }[];
  baseline: number;
  sweep: readonly TSweepAxis[];
  runs: readonly { variant: number; status: TRunStatus; summary: TRunSummary | null }[];
  /** The experiment's comparison thresholds, and whether its runs have per-run ones (their results are in each run's summary). */
  thresholds?: { comparison: readonly TComparisonThreshold[]; runThresholds: boolean };
};

export type ExperimentStatistics = {
  variants: TVariantStatistics[];
  comparisons: TExperimentComparison[];
  usl: TUslResult | null;
  /** Why no USL was fitted over a sweep of a scale knob (too few points, …); null when not applicable. */
  uslNote: string | null;
  /** The verdict of the experiment's thresholds (./experiment-thresholds.ts); null when it has none. */
  thresholds: TExperimentThresholdsOutcome | null;
};

export function experimentStatistics(input: ExperimentStatisticsInput): ExperimentStatistics {
  const values = input.variants.map((v) => {
    const ok = input.runs.filter((r) => r.variant === v.index && r.status === "succeeded" && r.summary);
    const byMetric = Object.fromEntries(
      METRIC_KEYS.map((k) => [k, ok.map((r) => metricOf(r.summary!, k)).filter((x): x is number => x !== null)]),
    ) as Record<TMetricKey, number[]>;
    return {
      ok,
      byMetric,
      failed: input.runs.filter((r) => r.variant === v.index && (r.status === "failed" || r.status === "interrupted")).length,
    };
  });
  const variants: TVariantStatistics[] = values.map(({ ok, byMetric, failed }) => {
    const metrics = Object.fromEntries(METRIC_KEYS.map((k) => [k, describe(byMetric[k])])) as TVariantStatistics["metrics"];
    // An error rate near 0 varies "by 100 %" between 0.0001 and 0.0002: not what a user calls noisy.
    const noisy = METRIC_KEYS.filter((k) => k !== "errorRate" && variationWarning(metrics[k]));
    return { runs: ok.length, failedRuns: failed, metrics, noisy };
  });

  const comparisons: TExperimentComparison[] = [];
  const base = input.variants[input.baseline];
  if (base) {
    for (const v of input.variants) {
      if (v.index === base.index) continue;
      for (const m of EXPERIMENT_METRICS) {
        if (m.key === "errorRate") continue;
        const cmp = compareSamples(values[base.index]!.byMetric[m.key], values[v.index]!.byMetric[m.key]);
        const verdict =
          cmp.pValue === null ? "unknown" : !cmp.significant ? "same" : cmp.ratio > 1 === (m.better === "higher") ? "better" : "worse";
        comparisons.push({
          baseline: base.name,
          variant: v.name,
          metric: m.key,
          ratio: cmp.ratio,
          ciLow: cmp.ciLow,
          ciHigh: cmp.ciHigh,
          pValue: cmp.pValue,
          significant: cmp.significant,
          text: benchstatText(cmp),
          verdict,
          ...(cmp.reason !== undefined && { reason: cmp.reason }),
        });
      }
    }
  }

  const { usl, uslNote } = uslOf(input);
  const thresholds = experimentThresholds({
    variants: input.variants,
    baseline: input.baseline,
    comparisons,
    comparisonThresholds: input.thresholds?.comparison ?? [],
    runThresholds: input.thresholds?.runThresholds ?? false,
    runs: input.runs.map((r) => ({ variant: r.variant, status: r.status, thresholds: r.summary?.thresholds })),
  });
  return { variants, comparisons, usl, uslNote, thresholds };
}

function uslOf(input: ExperimentStatisticsInput): Pick<ExperimentStatistics, "usl" | "uslNote"> {
  const axes = input.sweep.filter((a) => (SCALE_FIELDS as readonly string[]).includes(a.field));
  if (axes.length !== 1 || input.sweep.length !== 1) return { usl: null, uslNote: null };
  const field = axes[0]!.field;
  if (!axes[0]!.values.every((v) => typeof v === "number")) return { usl: null, uslNote: `${field} values must be numbers to fit the USL` };
  // Variants beside the sweep: each would need its own curve; none is drawn.
  if (input.variants.length !== axes[0]!.values.length) return { usl: null, uslNote: null };
  const points = input.runs
    .filter((r) => r.status === "succeeded" && r.summary)
    .map((r) => ({ n: input.variants[r.variant]!.axes[field] as number, x: r.summary!.rps }));
  const fit = fitUsl(points);
  if (!fit.ok) return { usl: null, uslNote: fit.reason };
  const nMax = Math.max(
    ...points.map((p) => p.n),
    fit.peakN !== null ? Math.min(fit.peakN * 1.5, 4 * Math.max(...points.map((p) => p.n))) : 0,
  );
  return {
    usl: {
      field,
      sigma: fit.sigma,
      kappa: fit.kappa,
      lambda: fit.lambda,
      peakN: fit.peakN,
      peakX: fit.peakX,
      ceilingX: fit.kappa === 0 && fit.sigma > 0 ? fit.lambda / fit.sigma : null,
      r2: fit.r2,
      points: fit.points,
      curve: uslCurve(fit, nMax, 60),
    },
    uslNote: fit.untested ? uslUntestedNote(new Set(points.map((p) => p.n)).size) : null,
  };
}

/** Said beside a fit to 3 N values with repetitions: it is a fit, not a test of the law. */
export const uslUntestedNote = (distinct: number): string =>
  `fitted to ${distinct} values of N with repetitions: a curve with 3 parameters passes near ${distinct} means whatever the law, so it is not tested by them; sweep ${USL_MIN_POINTS} or more values to test it`;
