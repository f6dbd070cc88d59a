/*
 * Expected values from scipy 1.17.1 / numpy 2.4.6 (Python 3.11). To re-run:
 *
 * import numpy as np
 * import scipy
 * from scipy import stats
 *
 * print("scipy", scipy.__version__, "numpy", np.__version__)
 *
 * def describe(x):
 *     x = np.asarray(x, float)
 *     m, sd = x.mean(), x.std(ddof=1)
 *     lo, hi = stats.t.interval(0.95, len(x) - 1, loc=m, scale=stats.sem(x))
 *     print(f"describe {x.tolist()}: mean={m!r} sd={sd!r} cv={sd / m!r} ci=[{lo!r}, {hi!r}]")
 *
 * def compare(b, v, alpha=0.05):
 *     lb, lv = np.log(b), np.log(v)
 *     r = stats.ttest_ind(lv, lb, equal_var=False)
 *     ci = r.confidence_interval(1 - alpha)
 *     print(f"compare {b} -> {v} (alpha {alpha}): ratio={np.exp(lv.mean() - lb.mean())!r} p={r.pvalue!r} "
 *           f"ci=[{np.exp(ci.low)!r}, {np.exp(ci.high)!r}]")
 *
 * describe([412.3, 398.1, 405.7])
 * describe([48.2, 51.7, 49.9, 50.4, 47.8])
 * describe([412.3, 298.1, 505.7])
 * compare([412.3, 398.1, 405.7], [1180.2, 1211.9, 1195.4])
 * compare([1021.4, 998.7, 1010.2, 1005.9], [1003.8, 1017.5, 996.2, 1012.1])
 * compare([48.2, 51.7, 49.9, 50.4, 47.8], [29.1, 30.4, 28.7, 31.2, 29.9])
 * compare([998.0, 1012.0, 1005.0], [1029.0, 1041.0, 1022.0])
 * compare([998.0, 1012.0, 1005.0], [1029.0, 1041.0, 1022.0], alpha=0.01)
 * print("Mann-Whitney U, 3 vs 3 fully separated:",
 *       stats.mannwhitneyu([1, 2, 3], [4, 5, 6], alternative="two-sided", method="exact").pvalue)
 *
 * The last line prints 0.1: the reason the module does not use a rank test for 3 runs a side.
 */
import { describe, expect, it } from "vitest";
import { benchstatText, compareSamples, describe as describeValues, variationWarning, TComparison } from "./experiment-stats";

const expectClose = (actual: number | null, expected: number, rel = 1e-6) => {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(rel * Math.abs(expected));
};

const expectComparison = (cmp: TComparison, want: { ratio: number; pValue: number; ciLow: number; ciHigh: number }) => {
  expect(cmp.test).toBe("welch-log");
  expect(cmp.reason).toBeUndefined();
  expectClose(cmp.ratio, want.ratio);
  expectClose(cmp.pValue, want.pValue);
  expectClose(cmp.ciLow, want.ciLow);
  expectClose(cmp.ciHigh, want.ciHigh);
};

/** req/s of three runs each: the baseline and a variant with three times the replicas. */
const baselineRps = [412.3, 398.1, 405.7];
const scaledRps = [1180.2, 1211.9, 1195.4];

describe("describe", () => {
  it("gives the sample sd, cv and the 95 % interval of the mean on the log scale (Student's t on the logs)", () => {
    const d = describeValues(baselineRps);
    expect(d).toMatchObject({ n: 3, min: 398.1, max: 412.3 });
    // scipy: mean=405.36666666666673 sd=7.105866121264405 cv=0.017529478138140955; exp(t interval of the logs)=[388.04139754305044, 423.37864958699146]
    expectClose(d.mean, 405.36666666666673);
    expectClose(d.sd, 7.105866121264405);
    expectClose(d.cv, 0.017529478138140955);
    expectClose(d.ciLow, 388.04139754305044);
    expectClose(d.ciHigh, 423.37864958699146);
  });

  it("on five latency p95s (ms)", () => {
    const d = describeValues([48.2, 51.7, 49.9, 50.4, 47.8]);
    // scipy: mean=49.6 sd=1.6077935190813535 cv=0.03241519191696277; exp(t interval of the logs)=[47.62461719868171, 51.6139534882044]
    expectClose(d.mean, 49.6);
    expectClose(d.sd, 1.6077935190813535);
    expectClose(d.cv, 0.03241519191696277);
    expectClose(d.ciLow, 47.62461719868171);
    expectClose(d.ciHigh, 51.6139534882044);
  });

  it("never gives a negative interval for a noisy throughput (7,319 to 21,045 req/s), nor for counts with a 0", () => {
    const d = describeValues([7319, 21045, 14000]);
    // On the plain scale: 14,121 ± 17,051, below 0; on the log scale [3,440, 48,517].
    expectClose(d.ciLow, 3440.231489509176);
    expectClose(d.ciHigh, 48517.46953671074);
    expect(describeValues([0, 10, 0]).ciLow).toBe(0);
    expect(describeValues([-1, 1, 3]).ciLow).toBeLessThan(0);
  });

  it("has no spread for one value and nothing but n for none", () => {
    expect(describeValues([405.7])).toEqual({ n: 1, mean: 405.7, sd: null, cv: null, ciLow: null, ciHigh: null, min: 405.7, max: 405.7 });
    expect(describeValues([])).toEqual({ n: 0, mean: null, sd: null, cv: null, ciLow: null, ciHigh: null, min: null, max: null });
  });

  it("has no cv when the mean is 0", () => {
    expect(describeValues([0, 0, 0])).toMatchObject({ mean: 0, sd: 0, cv: null, ciLow: 0, ciHigh: 0 });
  });
});

describe("variationWarning", () => {
  it("warns when the runs vary by more than 10 % of their mean", () => {
    const noisy = describeValues([412.3, 298.1, 505.7]);
    // scipy: cv=0.25649253088684154
    expectClose(noisy.cv, 0.25649253088684154);
    expect(variationWarning(noisy)).toBe(true);
    expect(variationWarning(describeValues(baselineRps))).toBe(false);
    expect(variationWarning(describeValues(baselineRps), 0.01)).toBe(true);
  });

  it("does not warn without a cv", () => {
    expect(variationWarning(describeValues([405.7]))).toBe(false);
    expect(variationWarning(describeValues([]))).toBe(false);
  });
});

describe("compareSamples", () => {
  it("calls a tripling of req/s with 3 runs a side", () => {
    const cmp = compareSamples(baselineRps, scaledRps);
    // scipy: ratio=2.9501337707838284 p=2.907357935178422e-07 ci=[2.8449461832532226, 3.0592105104662886]
    expectComparison(cmp, {
      ratio: 2.9501337707838284,
      pValue: 2.907357935178422e-7,
      ciLow: 2.8449461832532226,
      ciHigh: 3.0592105104662886,
    });
    expect(cmp.significant).toBe(true);
    expect(benchstatText(cmp)).toBe("+195.0% (p=0.000)");
  });

  it("finds no difference between two runs of the same configuration (A/A)", () => {
    const cmp = compareSamples([1021.4, 998.7, 1010.2, 1005.9], [1003.8, 1017.5, 996.2, 1012.1]);
    // scipy: ratio=0.998365635713991 p=0.8128112463613071 ci=[0.9823467501383626, 1.0146457372961353]
    expectComparison(cmp, { ratio: 0.998365635713991, pValue: 0.8128112463613071, ciLow: 0.9823467501383626, ciHigh: 1.0146457372961353 });
    expect(cmp.significant).toBe(false);
    expect(cmp.ciLow!).toBeLessThan(1);
    expect(cmp.ciHigh!).toBeGreaterThan(1);
    expect(benchstatText(cmp)).toBe("~ (p=0.813)");
  });

  it("calls a lower latency p95 a decrease", () => {
    const cmp = compareSamples([48.2, 51.7, 49.9, 50.4, 47.8], [29.1, 30.4, 28.7, 31.2, 29.9]);
    // scipy: ratio=0.6019986790967468 p=8.738846408154377e-09 ci=[0.5737555070401754, 0.6316321241145871]
    expectComparison(cmp, {
      ratio: 0.6019986790967468,
      pValue: 8.738846408154377e-9,
      ciLow: 0.5737555070401754,
      ciHigh: 0.6316321241145871,
    });
    expect(benchstatText(cmp)).toBe("\u221239.8% (p=0.000)");
  });

  it("tests at the given alpha, with the interval at the same level", () => {
    const b = [998.0, 1012.0, 1005.0];
    const v = [1029.0, 1041.0, 1022.0];
    const at5 = compareSamples(b, v);
    // scipy: ratio=1.02552588838025 p=0.022810811959752562 ci=[1.005980361166584, 1.0454511721466353]
    expectComparison(at5, { ratio: 1.02552588838025, pValue: 0.022810811959752562, ciLow: 1.005980361166584, ciHigh: 1.0454511721466353 });
    expect(at5.significant).toBe(true);
    expect(benchstatText(at5)).toBe("+2.6% (p=0.023)");

    const at1 = compareSamples(b, v, { alpha: 0.01 });
    // scipy, alpha 0.01: ci=[0.9925696036758546, 1.0595764204779714]
    expectComparison(at1, { ratio: 1.02552588838025, pValue: 0.022810811959752562, ciLow: 0.9925696036758546, ciHigh: 1.0595764204779714 });
    expect(at1.significant).toBe(false);
    expect(benchstatText(at1)).toBe("~ (p=0.023)");
  });

  it("gives a ratio but no test with a single run on a side", () => {
    const cmp = compareSamples([405.7], scaledRps);
    expect(cmp).toMatchObject({ pValue: null, ciLow: null, ciHigh: null, significant: false, test: "welch-log" });
    expectClose(cmp.ratio, Math.exp((Math.log(1180.2) + Math.log(1211.9) + Math.log(1195.4)) / 3) / 405.7, 1e-12);
    expect(cmp.reason).toBe("needs at least 2 runs on each side; got 1 (baseline) and 3 (variant)");
    expect(benchstatText(cmp)).toBe("? +194.7% (needs at least 2 runs on each side; got 1 (baseline) and 3 (variant))");
  });

  it("gives nothing but a reason with an empty side", () => {
    const cmp = compareSamples([], scaledRps);
    expect(cmp).toMatchObject({ ratio: null, pValue: null, significant: false });
    expect(cmp.reason).toContain("got 0 (baseline)");
    expect(benchstatText(cmp)).toBe(`? (${cmp.reason})`);
  });

  it("refuses a metric with a value ≤ 0, such as a failed run's 0 req/s", () => {
    const cmp = compareSamples(baselineRps, [1180.2, 0, 1195.4]);
    expect(cmp).toEqual({
      test: "welch-log",
      ratio: null,
      ciLow: null,
      ciHigh: null,
      pValue: null,
      significant: false,
      reason: "needs values > 0 to compare as ratios; got 0",
    });
    expect(compareSamples([-1, 2], [3, 4]).reason).toBe("needs values > 0 to compare as ratios; got -1");
    expect(compareSamples([Number.NaN, 2], [3, 4]).reason).toBe("needs values > 0 to compare as ratios; got NaN");
  });

  it("takes sides without any spread as exact: p = 1 when equal, else p = 0", () => {
    expect(compareSamples([500, 500, 500], [500, 500])).toEqual({
      test: "welch-log",
      ratio: 1,
      ciLow: 1,
      ciHigh: 1,
      pValue: 1,
      significant: false,
    });
    const differ = compareSamples([500, 500, 500], [550, 550, 550]);
    expect(differ).toMatchObject({ pValue: 0, significant: true, ciLow: differ.ratio, ciHigh: differ.ratio });
    expectClose(differ.ratio, 1.1, 1e-12);
    expect(benchstatText(differ)).toBe("+10.0% (p=0.000)");
  });

  it("tests one side without spread against one with it", () => {
    const cmp = compareSamples([500, 500, 500], [540, 560, 550]);
    expect(cmp.pValue).not.toBeNull();
    expect(Number.isFinite(cmp.pValue!)).toBe(true);
    expect(cmp.ratio).toBeGreaterThan(1);
  });
});
