import { describe, expect, it } from "vitest";
import { EXIT } from "./errors";
import { experimentOutcome, figure, markRefusal, resultLine, runOutcome } from "./outcome";

const thresholds = (passed: boolean[]) => ({
  passed: passed.every(Boolean),
  results: passed.map((p, i) => ({
    metric: i === 0 ? "p95" : "rps",
    op: i === 0 ? "<" : ">=",
    value: i === 0 ? 0.001 : 100,
    actual: i === 0 ? 2.41 : 99.5,
    passed: p,
  })),
});
const run = (status: string, summary: unknown = null, error: string | null = null) => ({ id: "3f2b9c4e-8d1a", status, error, summary });

describe("a run's exit code", () => {
  it("is 0 for a run that succeeded without thresholds", () => {
    expect(runOutcome(run("succeeded", { rps: 1 }))).toEqual({ code: EXIT.passed, lines: ["run 3f2b9c4e-8d1a succeeded"] });
  });

  it("is 0 when every threshold passed, and says so", () => {
    expect(runOutcome(run("succeeded", { thresholds: thresholds([true, true]) }))).toEqual({
      code: 0,
      lines: ["run 3f2b9c4e-8d1a succeeded", "thresholds: all 2 passed"],
    });
  });

  it("is 1 when a threshold failed, naming each failed one with its actual figure against the bound", () => {
    const o = runOutcome(run("succeeded", { thresholds: thresholds([false, true]) }));
    expect(o.code).toBe(EXIT.thresholdFailed);
    expect(o.lines).toEqual(["run 3f2b9c4e-8d1a succeeded", "threshold p95<0.001 ms FAILED: actual 2.41 ms"]);
  });

  it("is 1 when a figure a threshold needs does not exist", () => {
    const t = { passed: false, results: [{ metric: "checks", op: ">=", value: 0.99, actual: null, passed: false }] };
    expect(runOutcome(run("succeeded", { thresholds: t })).lines[1]).toBe("threshold checks>=0.99 FAILED: no such figure in this run");
  });

  it.each([
    ["failed", "provisioning failed: image missing", "run 3f2b9c4e-8d1a failed: provisioning failed: image missing"],
    ["interrupted", null, "run 3f2b9c4e-8d1a interrupted"],
    ["cancelled", null, "run 3f2b9c4e-8d1a was cancelled"],
  ])("is 2 for a run %s", (status, error, line) => {
    expect(runOutcome(run(status, null, error))).toEqual({ code: EXIT.failed, lines: [line] });
  });

  it("is 2 for a cancelled run even when its summary has failed thresholds", () => {
    expect(runOutcome(run("cancelled", { thresholds: thresholds([false]) })).code).toBe(EXIT.failed);
  });

  it("ignores a summary's thresholds that are not the contract's shape", () => {
    expect(runOutcome(run("succeeded", { thresholds: [{ metric: "p95" }] })).code).toBe(EXIT.passed);
  });
});

describe("an experiment's exit code", () => {
  const progress = { planned: 6, succeeded: 6, missing: 0, failed: 0, cancelled: 0 };
  const view = (status: string, extra: Record<string, unknown> = {}) => ({ id: "e1", status, progress, ...extra });

  it("is 0 when it succeeded without thresholds or with all passed", () => {
    expect(experimentOutcome(view("succeeded")).code).toBe(0);
    expect(experimentOutcome(view("succeeded", { thresholds: thresholds([true]) })).code).toBe(0);
  });

  it("is 1 when a threshold failed, wherever the view keeps them (its own, its statistics', its summary's)", () => {
    expect(experimentOutcome(view("succeeded", { thresholds: thresholds([false]) })).code).toBe(1);
    expect(experimentOutcome(view("succeeded", { statistics: { thresholds: thresholds([false]) } })).code).toBe(1);
    expect(experimentOutcome(view("succeeded", { summary: { thresholds: thresholds([true, false]) } })).lines[1]).toMatch(
      /rps>=100 req\/s FAILED/,
    );
  });

  it("says a comparison threshold's verdict with the statistics' figures", () => {
    const r = {
      kind: "comparison",
      variant: "half cpu",
      baseline: "base",
      metric: "rps",
      compare: "baseline",
      worseBy: 5,
      p: 0.05,
      actual: -48.1,
      ratio: 0.519,
      ciLow: 0.48,
      ciHigh: 0.56,
      pValue: 0.001,
      passed: false,
    };
    expect(resultLine(r)).toBe(
      "half cpu vs base: rps no worse than 5 % (p < 0.05) FAILED: -48.1 % (ratio 0.519, 95 % CI 0.48–0.56, p 0.001)",
    );
    expect(resultLine({ ...r, actual: null, ratio: null, ciLow: null, ciHigh: null, pValue: null, reason: "one run a side" })).toBe(
      "half cpu vs base: rps no worse than 5 % (p < 0.05) FAILED: no ratio; one run a side",
    );
  });

  it("says a variant's per-run threshold with its worst run and how many failed", () => {
    const r = { kind: "run", variant: "3 replicas", metric: "p95", op: "<", value: 5, actual: 7.2, runs: 3, failedRuns: 2, passed: false };
    expect(resultLine(r)).toBe("3 replicas: threshold p95<5 ms FAILED: worst 7.2 ms (2 of 3 runs)");
  });

  it("is 2 when it failed or was cancelled", () => {
    expect(experimentOutcome(view("failed", { progress: { ...progress, succeeded: 4, missing: 2, failed: 3 } }))).toEqual({
      code: 2,
      lines: ["experiment e1 failed: 2 of 6 runs have no succeeded run after the retry (3 failed)"],
    });
    expect(experimentOutcome(view("cancelled")).code).toBe(2);
  });
});

describe("the regression check", () => {
  const regression = (verdict: "passed" | "regressed" | "cannot_tell", regressed: boolean) => ({
    baselineId: "b-1",
    verdict,
    worseBy: 10,
    p: 0.05,
    matchedBy: "name",
    reason: null,
    results: [
      {
        variant: "cpu-bound",
        baselineVariant: "cpu-bound",
        metric: "rps",
        baselineFigure: 710.2,
        figure: regressed ? 342.3 : 705,
        baselineRuns: 3,
        runs: 3,
        ratio: regressed ? 0.482 : 0.993,
        ciLow: regressed ? 0.431 : 0.9,
        ciHigh: regressed ? 0.539 : 1.1,
        pValue: regressed ? 0.001 : 0.81,
        regressed,
        reason: regressed ? "rps 51.8 % lower than the baseline (p=0.001 < 0.05), beyond 10 %" : null,
      },
    ],
  });
  const experiment = (r: unknown) => ({
    id: "e1",
    status: "succeeded",
    progress: { planned: 3, succeeded: 3, missing: 0, failed: 0, cancelled: 0 },
    regression: r,
  });

  it("is exit 1 when it regressed, its table printed after the thresholds", () => {
    const o = experimentOutcome(experiment(regression("regressed", true)));
    expect(o.code).toBe(EXIT.thresholdFailed);
    expect(o.lines).toEqual([
      "experiment e1 succeeded: 3 runs",
      "regression check against baseline b-1 (worse by more than 10 % at p < 0.05): REGRESSED",
      "  cpu-bound rps: 710 → 342 req/s, \u221251.8 % (ratio 0.482, 95 % CI 0.431–0.539, p 0.001) REGRESSED; rps 51.8 % lower than the baseline (p=0.001 < 0.05), beyond 10 %",
    ]);
  });

  it("is exit 0 when it passed or cannot tell; a run's too", () => {
    expect(experimentOutcome(experiment(regression("passed", false))).code).toBe(EXIT.passed);
    expect(
      experimentOutcome(experiment({ ...regression("cannot_tell", false), results: [], reason: "the baseline experiment b-1 was deleted" }))
        .lines[1],
    ).toBe(
      "regression check against baseline b-1 (worse by more than 10 % at p < 0.05): cannot tell (the baseline experiment b-1 was deleted)",
    );
    const r = runOutcome({ ...run("succeeded", { rps: 1 }), regression: { ...regression("regressed", true), results: [] } });
    expect(r.code).toBe(EXIT.thresholdFailed);
    // A failed run stays exit 2 whatever its check says.
    expect(runOutcome({ ...run("failed"), regression: regression("regressed", true) }).code).toBe(EXIT.failed);
  });
});

describe("markRefusal (--mark-baseline)", () => {
  const check = (verdict: string, results: { variant: string | null; metric: string; figure: number | null }[]) => ({
    regression: {
      baselineId: "b-1",
      verdict,
      worseBy: 10,
      p: 0.05,
      reason: verdict === "cannot_tell" ? "no figure could be compared with the baseline" : null,
      results: results.map((r) => ({
        ...r,
        baselineFigure: 100,
        ratio: null,
        ciLow: null,
        ciHigh: null,
        pValue: null,
        regressed: false,
        reason: "no figure to compare",
      })),
    },
  });

  it("refuses one whose check cannot tell because its own figures are missing", () => {
    expect(
      markRefusal(
        check("cannot_tell", [
          { variant: null, metric: "rps", figure: null },
          { variant: null, metric: "p95", figure: null },
        ]),
      ),
    ).toBe("its regression check cannot tell: it has no figure for rps, p95");
  });

  it("allows one without a check, with a check that passed, or that cannot tell only because of the old baseline", () => {
    expect(markRefusal({ regression: null })).toBeNull();
    expect(markRefusal(check("passed", [{ variant: "a", metric: "rps", figure: 90 }]))).toBeNull();
    expect(markRefusal({ regression: { ...check("cannot_tell", []).regression, reason: "the baseline run b-1 was deleted" } })).toBeNull();
  });
});

describe("figure", () => {
  it.each([
    [0, "0"],
    [0.0012345, "0.00123"],
    [2.41, "2.41"],
    [99.96, "100"],
    [1234.5, "1,235"],
    [61700, "61,700"],
  ])("%d reads %s", (v, text) => {
    expect(figure(v)).toBe(text);
  });
});
