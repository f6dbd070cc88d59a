import { z } from "zod";
import { TRunSummary } from "../contract/results";
import { TRegressionSettings } from "../contract/regression";
import { compareSamples } from "./experiment-stats";
import { metricOf } from "./experiment-report";

/**
 * A run or an experiment against the baseline of its name: req/s (worse = lower) and p95 (worse =
 * higher), per matched variant for experiments. With at least 2 succeeded runs on both sides the
 * experiments' statistics decide (Welch's t-test on the logs, the ratio of geometric means with
 * its 95 % CI: experiment-stats.ts): a regression is a change worse than `worseBy` % at p < `p`.
 * With one run on a side only the ratio is known: worse than `worseBy` % is a regression, and the
 * reason says that one run cannot tell noise from a change.
 * A dead service is a regression, not something that cannot be told: when the baseline has the
 * figure and the current side has a run at 0 req/s (ratio 0), a run without a p95 (no request
 * completed), or runs that failed, it regressed, and the reason says which.
 */

export const REGRESSION_METRICS = ["rps", "p95"] as const;
export type TRegressionMetric = (typeof REGRESSION_METRICS)[number];
const METRIC_KEY = { rps: "rps", p95: "latencyMs.p95" } as const;
const METRIC_WORDS = { rps: { unit: "req/s", worse: "lower" }, p95: { unit: "ms", worse: "higher" } } as const;

export const REGRESSION_VERDICTS = ["passed", "regressed", "cannot_tell"] as const;
export type TRegressionVerdict = (typeof REGRESSION_VERDICTS)[number];

export const ZRegressionResult = z.object({
  /** The variant compared (experiments), and the baseline's variant it was matched with; null for runs. */
  variant: z.string().nullable(),
  baselineVariant: z.string().nullable(),
  metric: z.enum(REGRESSION_METRICS),
  /** Geometric mean of the succeeded runs' figure (the figure itself for one run): req/s, or p95 in ms. */
  baselineFigure: z.number().nullable(),
  figure: z.number().nullable(),
  baselineRuns: z.number().int(),
  runs: z.number().int(),
  ratio: z.number().nullable().describe("figure / baselineFigure (geometric means)"),
  ciLow: z.number().nullable().describe("95 % confidence interval of the ratio; null without 2 runs on each side"),
  ciHigh: z.number().nullable(),
  pValue: z.number().nullable().describe("Welch's t-test on the logs; null without 2 runs on each side"),
  regressed: z.boolean(),
  /** Why it regressed, why it could not be tested, or that one run cannot tell noise from a change. */
  reason: z.string().nullable(),
});
export type TRegressionResult = z.infer<typeof ZRegressionResult>;

export const ZRegression = z
  .object({
    baselineId: z.string().describe("the run or experiment it is compared with, recorded when it was created"),
    verdict: z
      .enum(REGRESSION_VERDICTS)
      .describe(
        "regressed: some figure is worse than the baseline's beyond the tolerance; passed: none is; cannot_tell: nothing could be compared (baseline deleted, not finished, no figures)",
      ),
    worseBy: z.number().describe("percent"),
    p: z.number(),
    /** How an experiment's variants were matched with the baseline's: by name, or by position when the names differ; null for runs. */
    matchedBy: z.enum(["name", "position"]).nullable(),
    /** Why the verdict is cannot_tell, or how the variants were matched; null otherwise. */
    reason: z.string().nullable(),
    results: z.array(ZRegressionResult),
  })
  .meta({ description: "The check against the baseline of its name; null when the name had no baseline when it was created" });
export type TRegression = z.infer<typeof ZRegression>;

/** One side of the check: whether it has ended, and each variant's succeeded runs' summaries (one variant for a run). */
export type RegressionSide = {
  ended: boolean;
  /** False when its status is not one that can serve as a baseline (a failed run, an experiment with missing runs). */
  succeeded: boolean;
  /** `failed`: its runs (repetitions) that failed or were interrupted with no succeeded run in their place. */
  variants: readonly { name: string; summaries: readonly TRunSummary[]; failed?: number }[];
};

export type RegressionInput = {
  kind: "run" | "experiment";
  baselineId: string;
  settings: TRegressionSettings;
  /** null: the baseline was deleted. */
  baseline: RegressionSide | null;
  current: RegressionSide;
};

const geometricMean = (values: readonly number[]): number | null =>
  values.length === 1
    ? values[0]!
    : values.length === 0 || values.some((v) => !(v > 0))
      ? null
      : Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);

const pct = (ratio: number) => Math.abs((ratio - 1) * 100).toFixed(1);

/** The interval shown is a 95 % one whatever `p` (the significance test's level) is. */
const CI_ALPHA = 0.05;

/**
 * Why the current side is dead where the baseline had the figure: runs at 0 req/s, runs with no
 * p95, runs that failed; null when none of that applies.
 */
function deadReason(
  metric: TRegressionMetric,
  b: readonly number[],
  c: readonly number[],
  current: readonly TRunSummary[],
  failed: number,
): string | null {
  const baseFigure = geometricMean(b);
  if (baseFigure === null || !(baseFigure > 0)) return null;
  const parts: string[] = [];
  const zero = c.filter((v) => v <= 0).length;
  if (metric === "rps" && zero > 0) parts.push(`${zero} of ${current.length} run(s) at 0 req/s`);
  // k6 reports a p95 of 0 when no request completed: as missing as none.
  const missing = current.length - c.filter((v) => v > 0).length;
  if (metric === "p95" && missing > 0) parts.push(`${missing} of ${current.length} run(s) without a p95 (no request completed)`);
  if (failed > 0) parts.push(`${failed} run(s) failed`);
  if (parts.length === 0) return null;
  return `${parts.join(", ")} where the baseline had ${metric} ${Number(baseFigure.toPrecision(4))} ${METRIC_WORDS[metric].unit}: the service did not answer`;
}

function compareMetric(
  metric: TRegressionMetric,
  settings: TRegressionSettings,
  base: readonly TRunSummary[],
  current: readonly TRunSummary[],
  names: { variant: string | null; baselineVariant: string | null },
  failed = 0,
): TRegressionResult {
  const values = (side: readonly TRunSummary[]) =>
    side.map((s) => metricOf(s, METRIC_KEY[metric])).filter((v): v is number => v !== null && Number.isFinite(v));
  const [b, c] = [values(base), values(current)];
  const dead = deadReason(metric, b, c, current, failed);
  if (dead !== null) {
    // Req/s: a run at 0 (or only failed runs) makes the figure 0, so the ratio is 0; a p95 that is missing has none.
    const baselineFigure = geometricMean(b)!;
    const figure =
      metric === "rps"
        ? c.length === 0 || c.some((v) => v <= 0)
          ? 0
          : geometricMean(c)
        : c.length === 0 || c.length < current.length || c.some((v) => v <= 0)
          ? null
          : geometricMean(c);
    return {
      ...names,
      metric,
      baselineFigure,
      figure,
      baselineRuns: b.length,
      runs: c.length,
      ratio: figure === null ? null : figure / baselineFigure,
      ciLow: null,
      ciHigh: null,
      pValue: null,
      regressed: true,
      reason: `regressed: ${dead}`,
    };
  }
  // The interval is the 95 % one it is labelled as; the significance test below keeps settings.p.
  const cmp = compareSamples(b, c, { alpha: CI_ALPHA });
  const words = METRIC_WORDS[metric];
  const beyond = cmp.ratio !== null && (metric === "rps" ? cmp.ratio < 1 - settings.worseBy / 100 : cmp.ratio > 1 + settings.worseBy / 100);
  const worse = cmp.ratio !== null && (metric === "rps" ? cmp.ratio < 1 : cmp.ratio > 1);
  const change = cmp.ratio === null ? "" : `${metric} ${pct(cmp.ratio)} % ${worse ? words.worse : metric === "rps" ? "higher" : "lower"}`;
  let regressed = false;
  let reason: string | null = null;
  if (cmp.pValue !== null) {
    regressed = beyond && cmp.pValue < settings.p;
    if (regressed) reason = `${change} than the baseline (p=${cmp.pValue.toFixed(3)} < ${settings.p}), beyond ${settings.worseBy} %`;
    else if (beyond)
      reason = `${change} than the baseline, but not significant (p=${cmp.pValue.toFixed(3)} ≥ ${settings.p}): noise cannot be ruled out`;
  } else if (cmp.ratio !== null) {
    regressed = beyond;
    const oneRun = `with ${b.length === 1 && c.length === 1 ? "one run on each side" : "one run on a side"} only the ratio is known: one run cannot tell noise from a change`;
    reason = regressed ? `${change} than the baseline, beyond ${settings.worseBy} % (${oneRun})` : oneRun;
  } else {
    reason = b.length === 0 ? "the baseline has no figure" : c.length === 0 ? "no figure to compare" : cmp.reason;
  }
  return {
    ...names,
    metric,
    baselineFigure: geometricMean(b),
    figure: geometricMean(c),
    baselineRuns: b.length,
    runs: c.length,
    ratio: cmp.ratio,
    ciLow: cmp.ciLow,
    ciHigh: cmp.ciHigh,
    pValue: cmp.pValue,
    regressed,
    reason,
  };
}

/** Pairs of (current, baseline) variants: by name when every current name is among the baseline's, else by position. */
function matchVariants(
  current: RegressionSide["variants"],
  baseline: RegressionSide["variants"],
): { pairs: [number, number][]; matchedBy: "name" | "position"; note: string | null } {
  const names = baseline.map((v) => v.name);
  if (current.every((v) => names.includes(v.name))) {
    return { pairs: current.map((v, i) => [i, names.indexOf(v.name)]), matchedBy: "name", note: null };
  }
  const n = Math.min(current.length, baseline.length);
  const pairs = Array.from({ length: n }, (_, i): [number, number] => [i, i]);
  const unmatched = current.length > n ? `; ${current.length - n} variant(s) beyond the baseline's ${baseline.length} not compared` : "";
  return {
    pairs,
    matchedBy: "position",
    note: `the variants' names differ from the baseline's (${baseline.map((v) => v.name).join(", ")}): matched by position${unmatched}`,
  };
}

export function regressionCheck(input: RegressionInput): TRegression {
  const { settings } = input;
  const head = { baselineId: input.baselineId, worseBy: settings.worseBy, p: settings.p };
  const isExperiment = input.kind === "experiment";
  const cannot = (reason: string): TRegression => ({ ...head, verdict: "cannot_tell", matchedBy: null, reason, results: [] });
  if (!input.baseline) return cannot(`the baseline ${input.kind} ${input.baselineId} was deleted`);
  if (!input.baseline.succeeded) return cannot(`the baseline ${input.kind} ${input.baselineId} did not succeed`);
  if (!input.current.ended) return cannot(`the ${input.kind} has not ended yet`);
  const { pairs, matchedBy, note } = isExperiment
    ? matchVariants(input.current.variants, input.baseline.variants)
    : { pairs: [[0, 0]] as [number, number][], matchedBy: null, note: null };
  const results: TRegressionResult[] = [];
  for (const [ci, bi] of pairs) {
    const cur = input.current.variants[ci];
    const base = input.baseline.variants[bi];
    if (!cur || !base) continue;
    const names = isExperiment ? { variant: cur.name, baselineVariant: base.name } : { variant: null, baselineVariant: null };
    for (const metric of REGRESSION_METRICS) {
      results.push(compareMetric(metric, settings, base.summaries, cur.summaries, names, cur.failed ?? 0));
    }
  }
  const verdict: TRegressionVerdict = results.some((r) => r.regressed)
    ? "regressed"
    : results.some((r) => r.ratio !== null)
      ? "passed"
      : "cannot_tell";
  const reason = verdict === "cannot_tell" ? [note, "no figure could be compared with the baseline"].filter(Boolean).join("; ") : note;
  return { ...head, verdict, matchedBy, reason, results };
}

/** The verdict in words a newcomer understands. */
export const REGRESSION_VERDICT_TEXT: Record<TRegressionVerdict, string> = {
  passed: "No regression: no worse than the baseline beyond the tolerance",
  regressed: "Regression: worse than the baseline beyond the tolerance",
  cannot_tell: "Cannot tell: nothing could be compared with the baseline",
};

const MINUS = "\u2212";

/** A result's change in words: "−48.2 % (ratio 0.518, 95 % CI 0.49–0.55, p=0.001)". */
export function regressionChangeText(r: TRegressionResult): string {
  if (r.ratio === null) return "—";
  const change = (r.ratio - 1) * 100;
  const ci = r.ciLow !== null && r.ciHigh !== null ? `, 95 % CI ${r.ciLow.toFixed(3)}–${r.ciHigh.toFixed(3)}` : "";
  const p = r.pValue !== null ? `, p=${r.pValue.toFixed(3)}` : "";
  return `${change < 0 ? MINUS : "+"}${Math.abs(change).toFixed(1)} % (ratio ${r.ratio.toFixed(3)}${ci}${p})`;
}
