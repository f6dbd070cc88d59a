import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ZRunSummary, TRunSummary } from "../contract/results";
import { evaluateThresholds, TComparisonThreshold, TThreshold } from "../contract/thresholds";
import { experimentStatistics } from "./experiment-report";
import { evaluateComparison, experimentThresholdActual, experimentThresholdText, experimentThresholds } from "./experiment-thresholds";

const recorded = (name: string): TRunSummary =>
  ZRunSummary.parse(
    (JSON.parse(readFileSync(new URL(`./fixtures/findings/${name}.json`, import.meta.url), "utf8")) as { summary: unknown }).summary,
  );

/** A recorded run's summary with its req/s and p95 scaled (repetitions of one variant differ a little). */
const scaled = (s: TRunSummary, rps: number, p95: number): TRunSummary => ({
  ...s,
  rps: s.rps * rps,
  latencyMs: { ...s.latencyMs, p95: s.latencyMs.p95 * p95 },
});

const variants = [
  { index: 0, name: "1 replica", axes: {} },
  { index: 1, name: "4 replicas", axes: {} },
];
const cmp = (metric: TComparisonThreshold["metric"], worseBy: number, p = 0.05): TComparisonThreshold => ({
  metric,
  compare: "baseline",
  worseBy,
  p,
});

/** Experiment 1's two recorded runs, three repetitions each (±1 %): 4 replicas give 0.70× the req/s in the write-up. */
function experiment1(thresholds: TThreshold[], comparison: TComparisonThreshold[]) {
  const one = recorded("exp1--1-replica");
  const four = recorded("exp1--4-replicas");
  const runs = [0.99, 1, 1.01].flatMap((f, i) => {
    const a = scaled(one, f, 2 - f);
    const b = scaled(four, 1.01 - i * 0.01, f);
    return [
      { variant: 0, status: "succeeded" as const, summary: { ...a, thresholds: evaluateThresholds(thresholds, a) } },
      { variant: 1, status: "succeeded" as const, summary: { ...b, thresholds: evaluateThresholds(thresholds, b) } },
    ];
  });
  return experimentStatistics({
    variants,
    baseline: 0,
    sweep: [],
    runs,
    thresholds: { comparison, runThresholds: thresholds.length > 0 },
  });
}

describe("an experiment's thresholds", () => {
  it("a significant drop of req/s beyond the tolerance fails, with the statistics' ratio, CI and p", () => {
    const stats = experiment1([], [cmp("rps", 5)]);
    const c = stats.comparisons.find((x) => x.variant === "4 replicas" && x.metric === "rps")!;
    expect(c.significant).toBe(true);
    expect(stats.thresholds).toEqual({
      passed: false,
      results: [
        {
          kind: "comparison",
          variant: "4 replicas",
          baseline: "1 replica",
          metric: "rps",
          compare: "baseline",
          worseBy: 5,
          p: 0.05,
          actual: (c.ratio! - 1) * 100,
          ratio: c.ratio,
          ciLow: c.ciLow,
          ciHigh: c.ciHigh,
          pValue: c.pValue,
          passed: false,
          reason: expect.stringMatching(/^\d+\.\d % lower than 1 replica \(p=0\.\d{3} < 0\.05\), more than 5 %$/) as string,
        },
      ],
    });
    expect(c.ratio!).toBeLessThan(0.95);
  });

  it("passes when the drop is within the tolerance, or the metric got better", () => {
    const stats = experiment1([], [cmp("rps", 1000)]);
    expect(stats.thresholds?.passed).toBe(true);
    const c = stats.comparisons.find((x) => x.metric === "rps")!;
    // Better req/s never fails an rps threshold, however strict.
    expect(evaluateComparison(cmp("rps", 0), { ...c, ratio: 1.3, ciLow: 1.2, ciHigh: 1.4, pValue: 0.001 }, "b", "a").passed).toBe(true);
    // Higher latency is worse: +30 % at p = 0.001 fails a 5 % tolerance, passes a 50 % one and a p of 0.0001.
    const slower = { ...c, metric: "latencyMs.p95", ratio: 1.3, ciLow: 1.2, ciHigh: 1.4, pValue: 0.001 };
    expect(evaluateComparison(cmp("p95", 5), slower, "b", "a").passed).toBe(false);
    expect(evaluateComparison(cmp("p95", 50), slower, "b", "a").passed).toBe(true);
    expect(evaluateComparison(cmp("p95", 5, 0.0001), slower, "b", "a").passed).toBe(true);
  });

  it("a comparison that cannot be tested fails, saying why", () => {
    const r = evaluateComparison(
      cmp("rps", 5),
      {
        baseline: "a",
        variant: "b",
        metric: "rps",
        ratio: 0.9,
        ciLow: null,
        ciHigh: null,
        pValue: null,
        reason: "needs at least 2 runs on each side; got 1 (baseline) and 1 (variant)",
      },
      "b",
      "a",
    );
    expect(r).toMatchObject({
      passed: false,
      actual: expect.closeTo(-10, 9) as number,
      reason: "not tested: needs at least 2 runs on each side; got 1 (baseline) and 1 (variant)",
    });
    expect(evaluateComparison(cmp("rps", 5), undefined, "b", "a")).toMatchObject({
      passed: false,
      actual: null,
      reason: "no comparison with the baseline",
    });
  });

  it("per-run thresholds: each variant's worst run, and how many failed", () => {
    const stats = experiment1([{ metric: "rps", op: ">=", value: 12000 }], []);
    expect(stats.thresholds?.passed).toBe(false);
    const [one, four] = stats.thresholds!.results;
    expect(one).toMatchObject({ kind: "run", variant: "1 replica", runs: 3, failedRuns: 0, passed: true });
    expect(one!.actual).toBeCloseTo(recorded("exp1--1-replica").rps * 0.99, 6);
    expect(four).toMatchObject({ kind: "run", variant: "4 replicas", runs: 3, failedRuns: 3, passed: false });
    expect(experimentThresholdText(four!)).toBe("rps>=12000");
    expect(experimentThresholdActual(four!)).toMatch(/^[\d,]+ req\/s \(worst of 3 runs, 3 failed\)$/);
  });

  it("none at all: null; defined but no run finished yet: no result, not passed or failed by anything", () => {
    expect(experiment1([], []).thresholds).toBeNull();
    expect(
      experimentThresholds({ variants, baseline: 0, comparisons: [], comparisonThresholds: [], runThresholds: true, runs: [] }),
    ).toEqual({ passed: true, results: [] });
  });
});
