import { describe, expect, it } from "vitest";
import { TRunSummary } from "../contract/results";
import { DEFAULT_REGRESSION, ZRegressionSettings } from "../contract/regression";
import { compareSamples } from "./experiment-stats";
import { regressionChangeText, regressionCheck, RegressionSide } from "./regression";

const summary = (rps: number, p95: number): TRunSummary => ({
  requests: Math.round(rps * 10),
  rps,
  errors: 0,
  errorRate: 0,
  latencyMs: { avg: p95 / 2, p50: p95 / 2, p90: p95 * 0.9, p95, p99: p95 * 1.2, max: p95 * 2 },
});
const side = (variants: Record<string, [number, number][]>, opts: Partial<RegressionSide> = {}): RegressionSide => ({
  ended: true,
  succeeded: true,
  variants: Object.entries(variants).map(([name, runs]) => ({ name, summaries: runs.map(([rps, p95]) => summary(rps, p95)) })),
  ...opts,
});
const check = (baseline: RegressionSide | null, current: RegressionSide, kind: "run" | "experiment" = "experiment") =>
  regressionCheck({ kind, baselineId: "b1", settings: DEFAULT_REGRESSION, baseline, current });

const base = side({
  a: [
    [1000, 20],
    [1010, 21],
    [990, 19],
  ],
});

describe("regressionCheck of experiments", () => {
  it("half the req/s and twice the p95, significant: regressed, with the statistics' ratio, CI and p", () => {
    const current = side({
      a: [
        [500, 40],
        [510, 41],
        [495, 39],
      ],
    });
    const out = check(base, current);
    expect(out.verdict).toBe("regressed");
    expect(out.matchedBy).toBe("name");
    const [rps, p95] = out.results;
    const expected = compareSamples([1000, 1010, 990], [500, 510, 495]);
    expect(rps).toMatchObject({ variant: "a", baselineVariant: "a", metric: "rps", regressed: true, baselineRuns: 3, runs: 3 });
    expect(rps!.ratio).toBeCloseTo(expected.ratio!, 12);
    expect(rps!.pValue).toBe(expected.pValue);
    expect(rps!.ciLow).toBe(expected.ciLow);
    expect(rps!.figure! / rps!.baselineFigure!).toBeCloseTo(rps!.ratio!, 12);
    expect(rps!.reason).toMatch(/^rps 4\d\.\d % lower than the baseline \(p=0\.0\d\d < 0\.05\), beyond 10 %$/);
    expect(p95).toMatchObject({ metric: "p95", regressed: true });
    expect(p95!.reason).toMatch(/^p95 \d+\.\d % higher/);
  });

  it("the same figures give passed; better ones too", () => {
    expect(check(base, base).verdict).toBe("passed");
    const faster = side({
      a: [
        [2000, 10],
        [2010, 11],
        [1990, 9],
      ],
    });
    const out = check(base, faster);
    expect(out.verdict).toBe("passed");
    expect(out.results.every((r) => !r.regressed && r.reason === null)).toBe(true);
  });

  it("a change beyond the tolerance that is not significant is no regression, and says so", () => {
    const noisy = side({
      a: [
        [400, 20],
        [1500, 20],
        [700, 20],
      ],
    });
    const out = check(base, noisy);
    const rps = out.results.find((r) => r.metric === "rps")!;
    expect(rps.ratio!).toBeLessThan(0.9);
    expect(rps.pValue!).toBeGreaterThan(0.05);
    expect(rps.regressed).toBe(false);
    expect(rps.reason).toMatch(/not significant .* noise cannot be ruled out/);
    expect(out.verdict).toBe("passed");
  });

  it("within worseBy is no regression even when significant", () => {
    const slightly = side({
      a: [
        [950, 20],
        [951, 21],
        [949, 19],
      ],
    });
    const out = regressionCheck({
      kind: "experiment",
      baselineId: "b1",
      settings: { worseBy: 10, p: 0.05 },
      baseline: base,
      current: slightly,
    });
    expect(out.verdict).toBe("passed");
    const strict = regressionCheck({
      kind: "experiment",
      baselineId: "b1",
      settings: { worseBy: 2, p: 0.05 },
      baseline: base,
      current: slightly,
    });
    expect(strict.verdict).toBe("regressed");
    expect(strict.worseBy).toBe(2);
  });

  it("variants are matched by name whatever their order; by position when the names differ, and it says so", () => {
    const two = side({
      x: [
        [1000, 20],
        [1001, 20],
      ],
      y: [
        [100, 20],
        [101, 20],
      ],
    });
    const swapped = side({
      y: [
        [100, 20],
        [101, 20],
      ],
      x: [
        [1000, 20],
        [1001, 20],
      ],
    });
    const byName = check(two, swapped);
    expect(byName.matchedBy).toBe("name");
    expect(byName.verdict).toBe("passed");
    const renamed = side({
      p: [
        [1000, 20],
        [1001, 20],
      ],
      q: [
        [50, 20],
        [51, 20],
      ],
    });
    const byPosition = check(two, renamed);
    expect(byPosition.matchedBy).toBe("position");
    expect(byPosition.reason).toBe("the variants' names differ from the baseline's (x, y): matched by position");
    expect(byPosition.results.filter((r) => r.regressed).map((r) => [r.variant, r.baselineVariant, r.metric])).toEqual([["q", "y", "rps"]]);
  });
});

describe("regressionCheck of runs (one run a side)", () => {
  const run = (rps: number, p95: number) => side({ run: [[rps, p95]] });
  it("only the ratio: worse than worseBy is a regression, and the reason says one run cannot tell noise from a change", () => {
    const out = check(run(1000, 20), run(400, 20), "run");
    expect(out.matchedBy).toBeNull();
    expect(out.verdict).toBe("regressed");
    const rps = out.results[0]!;
    expect(rps).toMatchObject({ variant: null, metric: "rps", pValue: null, ciLow: null, ciHigh: null, regressed: true });
    expect(rps.ratio).toBeCloseTo(0.4, 12);
    expect(rps.reason).toBe(
      "rps 60.0 % lower than the baseline, beyond 10 % (with one run on each side only the ratio is known: one run cannot tell noise from a change)",
    );
    expect(regressionChangeText(rps)).toBe("\u221260.0 % (ratio 0.400)");
    const same = check(run(1000, 20), run(950, 21), "run");
    expect(same.verdict).toBe("passed");
    expect(same.results[0]!.reason).toMatch(/one run cannot tell noise from a change/);
  });
});

describe("regressionCheck cannot tell", () => {
  it("when the baseline was deleted or did not succeed, the current one has not ended, or there is no figure", () => {
    expect(check(null, base)).toMatchObject({ verdict: "cannot_tell", reason: "the baseline experiment b1 was deleted", results: [] });
    expect(check({ ...base, succeeded: false }, base).reason).toBe("the baseline experiment b1 did not succeed");
    expect(check(base, { ...base, ended: false }).reason).toBe("the experiment has not ended yet");
    const failed = check(base, side({ a: [] }));
    expect(failed.verdict).toBe("cannot_tell");
    expect(failed.results[0]!.reason).toBe("no figure to compare");
  });
});

describe("regressionCheck of a dead service", () => {
  const dead = (p95: number | null): TRunSummary => ({
    requests: 0,
    rps: 0,
    errors: 0,
    errorRate: 0,
    latencyMs: { avg: p95, p50: p95, p90: p95, p95, p99: p95, max: p95 } as TRunSummary["latencyMs"],
  });
  const one = (rps: number, p95: number) => side({ run: [[rps, p95]] });

  it("a run at 0 req/s with no p95 regressed (ratio 0), it is not cannot_tell", () => {
    const out = check(one(1000, 20), { ended: true, succeeded: true, variants: [{ name: "run", summaries: [dead(null)] }] }, "run");
    expect(out.verdict).toBe("regressed");
    const [rps, p95] = out.results;
    expect(rps).toMatchObject({ metric: "rps", regressed: true, ratio: 0, figure: 0, baselineFigure: 1000 });
    expect(rps!.reason).toBe("regressed: 1 of 1 run(s) at 0 req/s where the baseline had rps 1000 req/s: the service did not answer");
    expect(p95).toMatchObject({ metric: "p95", regressed: true, ratio: null, figure: null });
    expect(p95!.reason).toMatch(/^regressed: 1 of 1 run\(s\) without a p95 \(no request completed\) where the baseline had p95 20 ms/);
  });

  it("one run of three at 0 req/s in an experiment regressed", () => {
    const current: RegressionSide = {
      ended: true,
      succeeded: true,
      variants: [{ name: "a", summaries: [summary(1000, 20), dead(20), summary(1005, 20)] }],
    };
    const out = check(base, current);
    expect(out.verdict).toBe("regressed");
    expect(out.results[0]).toMatchObject({ metric: "rps", ratio: 0, regressed: true });
    expect(out.results[0]!.reason).toMatch(/^regressed: 1 of 3 run\(s\) at 0 req\/s/);
  });

  it("failed runs where the baseline had figures regressed; a cancelled run still cannot tell", () => {
    const failedRun = check(one(1000, 20), { ended: true, succeeded: false, variants: [{ name: "run", summaries: [], failed: 1 }] }, "run");
    expect(failedRun.verdict).toBe("regressed");
    expect(failedRun.results[0]).toMatchObject({ ratio: 0, regressed: true });
    expect(failedRun.results[0]!.reason).toMatch(/^regressed: 1 run\(s\) failed where the baseline had rps 1000 req\/s/);
    const someFailed = check(
      base,
      side(
        {
          a: [
            [1000, 20],
            [1001, 20],
          ],
        },
        { succeeded: false },
      ),
    );
    expect(someFailed.verdict).toBe("passed");
    const withFailed = check(base, {
      ended: true,
      succeeded: false,
      variants: [{ name: "a", summaries: [summary(1000, 20), summary(1001, 20)], failed: 1 }],
    });
    expect(withFailed.verdict).toBe("regressed");
    expect(withFailed.results.map((r) => r.regressed)).toEqual([true, true]);
    const cancelled = check(one(1000, 20), { ended: true, succeeded: false, variants: [{ name: "run", summaries: [] }] }, "run");
    expect(cancelled.verdict).toBe("cannot_tell");
  });

  it("a baseline without the figure cannot make a dead run a regression", () => {
    const out = check(
      { ended: true, succeeded: true, variants: [{ name: "run", summaries: [dead(null)] }] },
      { ended: true, succeeded: true, variants: [{ name: "run", summaries: [dead(null)] }] },
      "run",
    );
    expect(out.verdict).toBe("cannot_tell");
  });
});

describe("the interval", () => {
  it("is the 95 % one it is labelled as whatever p is; p decides significance", () => {
    const current = side({
      a: [
        [900, 22],
        [905, 23],
        [880, 21],
      ],
    });
    const strict = regressionCheck({ kind: "experiment", baselineId: "b1", settings: { worseBy: 5, p: 0.01 }, baseline: base, current });
    const ci95 = compareSamples([1000, 1010, 990], [900, 905, 880], { alpha: 0.05 });
    const ci99 = compareSamples([1000, 1010, 990], [900, 905, 880], { alpha: 0.01 });
    expect(ci99.ciLow).not.toBe(ci95.ciLow);
    const rps = strict.results[0]!;
    expect(rps.ciLow).toBe(ci95.ciLow);
    expect(rps.ciHigh).toBe(ci95.ciHigh);
    expect(rps.regressed).toBe(rps.pValue! < 0.01);
  });
});

describe("ZRegressionSettings", () => {
  it("fills the defaults and names the field and its range", () => {
    expect(ZRegressionSettings.parse({})).toEqual({ worseBy: 10, p: 0.05 });
    const issues = (v: unknown) => ZRegressionSettings.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues({ worseBy: 1001 })).toEqual(["worseBy: regression.worseBy must be a number between 0 and 1000 (percent)"]);
    expect(issues({ p: 0 })).toEqual(["p: regression.p must be a number above 0 and at most 1"]);
    expect(issues({ tolerance: 3 })![0]).toMatch(/unknown field regression\.tolerance/);
  });
});
