/**
 * Statistics for experiments: variants of a load test, each run a few times, summarised per metric
 * and compared with a baseline.
 *
 * Why Welch's t-test on the logs of the values:
 * - Throughput and latency are positive and compared as ratios ("+12 % req/s", "p95 −40 %"). On a
 *   log scale a ratio is a difference, so the test's confidence interval, exponentiated, is a
 *   confidence interval of the ratio (of geometric means) that agrees with the p-value: it leaves
 *   out 1 exactly when p < alpha.
 * - With the default 3 repetitions per variant a rank test cannot work: the smallest two-sided p a
 *   Mann-Whitney U test can give for 3 vs 3 values is 2/20 = 0.1 (all of one side above all of the
 *   other), so it could never call even a real, large difference.
 * - Welch's test does not assume both variants vary alike, which a change of configuration often
 *   breaks (a saturated variant is usually steadier than one that is not).
 */
import ttest2 from "@stdlib/stats-ttest2";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";

export type TDescription = {
  n: number;
  mean: number | null;
  /** Sample standard deviation (n − 1); null below 2 values. */
  sd: number | null;
  /** sd / mean; null below 2 values or when the mean is 0. */
  cv: number | null;
  /**
   * 95 % confidence interval of the mean, on the log scale as the comparisons are (Student's t on
   * the logs, exponentiated: an interval of the geometric mean, never negative, as wide on either
   * side in ratio); with a value ≤ 0, Student's t on the values, its low end at least 0 when no value
   * is negative. Null below 2 values.
   */
  ciLow: number | null;
  ciHigh: number | null;
  min: number | null;
  max: number | null;
};

export function describe(values: readonly number[]): TDescription {
  const n = values.length;
  if (n === 0) return { n, mean: null, sd: null, cv: null, ciLow: null, ciHigh: null, min: null, max: null };
  const mean = average(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (n === 1) return { n, mean, sd: null, cv: null, ciLow: null, ciHigh: null, min, max };
  const sd = sampleSd(values, mean);
  const t = tQuantile(0.975, n - 1);
  let ciLow: number;
  let ciHigh: number;
  if (min > 0) {
    const logs = values.map(Math.log);
    const logMean = average(logs);
    const half = t * (sampleSd(logs, logMean) / Math.sqrt(n));
    [ciLow, ciHigh] = [Math.exp(logMean - half), Math.exp(logMean + half)];
  } else {
    const half = t * (sd / Math.sqrt(n));
    [ciLow, ciHigh] = [min >= 0 ? Math.max(0, mean - half) : mean - half, mean + half];
  }
  return { n, mean, sd, cv: mean === 0 ? null : sd / mean, ciLow, ciHigh, min, max };
}

const sampleSd = (values: readonly number[], mean: number) =>
  Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));

/** Whether the runs of a variant vary too much to trust (coefficient of variation above `threshold`). */
export function variationWarning(d: TDescription, threshold = 0.1): boolean {
  return d.cv !== null && d.cv > threshold;
}

/**
 * A variant against the baseline. Either tested (`pValue` a number, no `reason`) or not (`pValue`
 * null, `reason` says why); narrow on `pValue !== null`. `ratio` is variant / baseline of the
 * geometric means, and the interval is the ratio's at level 1 − alpha (95 % by default), so it
 * leaves out 1 exactly when the difference is significant.
 */
export type TComparison = TTested | TUntested;
type TTested = {
  test: "welch-log";
  ratio: number;
  ciLow: number;
  ciHigh: number;
  pValue: number;
  significant: boolean;
  reason?: undefined;
};
type TUntested = {
  test: "welch-log";
  /** Still given when each side has at least one value, all of them > 0. */
  ratio: number | null;
  ciLow: null;
  ciHigh: null;
  pValue: null;
  significant: false;
  reason: string;
};

/**
 * Welch's t-test on ln(values), variant against baseline (see the module comment).
 *
 * Not tested, with a `reason`: a value ≤ 0 or not finite on either side (a failed run's 0 req/s has
 * no logarithm; the metric is refused rather than giving NaN, and without a ratio), and fewer than
 * 2 values on either side (no variance to test against).
 *
 * When neither side varies at all (every run gave the same figure), the t statistic is 0/0 or
 * ±∞; the values are then taken as exact: equal sides give p = 1, different ones p = 0
 * (significant), with the interval shrunk to the ratio.
 */
export function compareSamples(baseline: readonly number[], variant: readonly number[], opts: { alpha?: number } = {}): TComparison {
  const alpha = opts.alpha ?? 0.05;
  const untested = (ratio: number | null, reason: string): TUntested => ({
    test: "welch-log",
    ratio,
    ciLow: null,
    ciHigh: null,
    pValue: null,
    significant: false,
    reason,
  });
  const bad = [...baseline, ...variant].find((v) => !(Number.isFinite(v) && v > 0));
  if (bad !== undefined) return untested(null, `needs values > 0 to compare as ratios; got ${bad}`);
  const logB = baseline.map(Math.log);
  const logV = variant.map(Math.log);
  const ratio = logB.length > 0 && logV.length > 0 ? Math.exp(average(logV) - average(logB)) : null;
  if (logB.length < 2 || logV.length < 2) {
    return untested(ratio, `needs at least 2 runs on each side; got ${logB.length} (baseline) and ${logV.length} (variant)`);
  }
  const tested = (r: number, ciLow: number, ciHigh: number, pValue: number): TTested => ({
    test: "welch-log",
    ratio: r,
    ciLow,
    ciHigh,
    pValue,
    significant: pValue < alpha,
  });
  if (isConstant(logB) && isConstant(logV)) {
    const r = variant[0]! / baseline[0]!;
    return tested(r, r, r, baseline[0] === variant[0] ? 1 : 0);
  }
  const t = ttest2(logV, logB, { variance: "unequal", alpha, alternative: "two-sided" });
  const [low, high] = t.ci;
  return tested(Math.exp(t.xmean - t.ymean), Math.exp(low!), Math.exp(high!), t.pValue);
}

const MINUS = "\u2212";

/** Like benchstat: "+12.3% (p=0.004)", "−40.1% (p=0.000)", "~ (p=0.412)" when not significant, "?" with the reason when untested. */
export function benchstatText(cmp: TComparison): string {
  if (cmp.pValue === null) return cmp.ratio === null ? `? (${cmp.reason})` : `? ${percent(cmp.ratio)} (${cmp.reason})`;
  const p = `(p=${cmp.pValue.toFixed(3)})`;
  return cmp.significant ? `${percent(cmp.ratio)} ${p}` : `~ ${p}`;
}

function percent(ratio: number): string {
  const pct = (ratio - 1) * 100;
  const text = Math.abs(pct).toFixed(1);
  return `${pct < 0 && text !== "0.0" ? MINUS : "+"}${text}%`;
}

function average(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

function isConstant(values: readonly number[]): boolean {
  return values.every((v) => v === values[0]);
}
