import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ZRunSummary, TRunSummary } from "./results";
import { ZRunCreate } from "./run";
import {
  evaluateThresholds,
  parseThreshold,
  thresholdFigure,
  ZExperimentThresholds,
  ZThresholds,
  TThreshold,
  TThresholdOp,
} from "./thresholds";

/** A real run's summary (../analysis/fixtures/findings/, recorded from the lab's Postgres). */
const recorded = (name: string): TRunSummary =>
  ZRunSummary.parse(
    (JSON.parse(readFileSync(new URL(`../analysis/fixtures/findings/${name}.json`, import.meta.url), "utf8")) as { summary: unknown })
      .summary,
  );

const t = (metric: TThreshold["metric"], op: TThresholdOp, value: number): TThreshold => ({ metric, op, value });

const base = {
  topology: { service: { replicas: 1 } },
  workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 },
};
const issuesOf = (body: unknown) => {
  const r = ZRunCreate.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
};

describe("parseThreshold", () => {
  it("reads the text form, with spaces, units and any case of the metric", () => {
    expect(parseThreshold("p95<250")).toEqual({ ok: true, threshold: t("p95", "<", 250) });
    expect(parseThreshold(" rps >= 1000 ")).toEqual({ ok: true, threshold: t("rps", ">=", 1000) });
    expect(parseThreshold("errorRate<0.01")).toEqual({ ok: true, threshold: t("errorRate", "<", 0.01) });
    expect(parseThreshold("errorrate<1%")).toEqual({ ok: true, threshold: t("errorRate", "<", 0.01) });
    expect(parseThreshold("p99<=1.5e3ms")).toEqual({ ok: true, threshold: t("p99", "<=", 1500) });
    expect(parseThreshold("checks>0.99")).toEqual({ ok: true, threshold: t("checks", ">", 0.99) });
    expect(parseThreshold("max>.5")).toEqual({ ok: true, threshold: t("max", ">", 0.5) });
  });

  it("names what is allowed when a part is wrong", () => {
    const error = (text: string) => {
      const r = parseThreshold(text);
      if (r.ok) throw new Error(`${text} parsed`);
      return r.error;
    };
    expect(error("p96<250")).toBe(
      '"p96<250": unknown metric p96: metric must be one of: rps, p50, p90, p95, p99, max, errorRate, checks (e.g. p95<250, rps>=1000, errorRate<0.01)',
    );
    expect(error("p95=250")).toMatch(/^"p95=250": unknown operator =: op must be one of: < <= > >=/);
    expect(error("p95 250")).toMatch(/no operator after p95: op must be one of: < <= > >=/);
    expect(error("p95<")).toMatch(/no value after p95<: value must be a number ≥ 0/);
    expect(error("p95<fast")).toMatch(/fast is not a number: value must be a number ≥ 0/);
    expect(error("p95<-1")).toMatch(/value must be a number ≥ 0/);
    expect(error("errorRate<5")).toMatch(/value of errorRate is a fraction: between 0 and 1 \(0.01 = 1 %\)/);
    expect(error("rps>10%")).toMatch(/10% is not a number/);
    expect(error("   ")).toMatch(/empty threshold/);
    expect(error("<5")).toMatch(/metric must be one of/);
  });
});

describe("evaluateThresholds", () => {
  it("on a recorded run (experiment 1, one replica: 15,702.7 req/s, p95 15.953 ms, no errors)", () => {
    const summary = recorded("exp1--1-replica");
    expect(evaluateThresholds([t("p95", "<", 250), t("rps", ">=", 1000), t("errorRate", "<", 0.01)], summary)).toEqual({
      passed: true,
      results: [
        { metric: "p95", op: "<", value: 250, actual: 15.953, passed: true },
        { metric: "rps", op: ">=", value: 1000, actual: 15702.7, passed: true },
        { metric: "errorRate", op: "<", value: 0.01, actual: 0, passed: true },
      ],
    });
    const failing = evaluateThresholds([t("p95", "<", 10), t("max", "<", 100)], summary);
    expect(failing.passed).toBe(false);
    expect(failing.results.map((r) => [r.actual, r.passed])).toEqual([
      [15.953, false],
      [77.951, true],
    ]);
  });

  it("on a recorded run with errors (experiment 6: 0.8328 % of the requests failed)", () => {
    const summary = recorded("exp6--grpc-retry-off");
    expect(evaluateThresholds([t("errorRate", "<", 0.01)], summary).passed).toBe(true);
    expect(evaluateThresholds([t("errorRate", "<", 0.005)], summary).results[0]).toEqual({
      metric: "errorRate",
      op: "<",
      value: 0.005,
      actual: 0.008328,
      passed: false,
    });
  });

  it("errorRate 0 passes < and <= 0 as the operators say", () => {
    const summary = recorded("exp1--1-replica");
    expect(evaluateThresholds([t("errorRate", "<", 0)], summary).passed).toBe(false);
    expect(evaluateThresholds([t("errorRate", "<=", 0)], summary).passed).toBe(true);
  });

  it("equality: < and > fail, <= and >= pass", () => {
    const summary = recorded("exp2--blocking");
    const at = (op: TThresholdOp) => evaluateThresholds([t("p95", op, 390.65)], summary).results[0]!;
    expect([at("<").passed, at("<=").passed, at(">").passed, at(">=").passed]).toEqual([false, true, false, true]);
    expect(at("<").actual).toBe(390.65);
  });

  it("no thresholds: passed, nothing to show", () => {
    expect(evaluateThresholds([], recorded("exp1--1-replica"))).toEqual({ passed: true, results: [] });
  });

  it("checks: the script's checks' pass rate over all checks; no check ran is a missing figure that fails", () => {
    const summary = recorded("exp1--1-replica");
    const withChecks: TRunSummary = {
      ...summary,
      script: {
        ownScenarios: false,
        checks: [
          { name: "status 200", passed: 95, failed: 5 },
          { name: "body", passed: 100, failed: 0 },
        ],
        metrics: [],
      },
    };
    expect(evaluateThresholds([t("checks", ">=", 0.975)], withChecks).results[0]).toMatchObject({ actual: 0.975, passed: true });
    expect(evaluateThresholds([t("checks", ">", 0.975)], withChecks).passed).toBe(false);
    const noChecks: TRunSummary = { ...summary, script: { ownScenarios: false, checks: [], metrics: [] } };
    expect(evaluateThresholds([t("checks", ">=", 0)], noChecks)).toEqual({
      passed: false,
      results: [{ metric: "checks", op: ">=", value: 0, actual: null, passed: false }],
    });
    expect(evaluateThresholds([t("checks", ">=", 0)], summary).results[0]!.actual).toBeNull();
  });

  it("a latency that is not a number is a missing figure", () => {
    const summary = { ...recorded("exp1--1-replica"), latencyMs: { avg: NaN, p50: NaN, p90: NaN, p95: NaN, p99: NaN, max: NaN } };
    expect(evaluateThresholds([t("p95", "<", 1e9)], summary).results[0]).toMatchObject({ actual: null, passed: false });
  });
});

describe("the schemas", () => {
  it("a run takes thresholds, none by default, and its summary keeps their results", () => {
    const run = ZRunCreate.parse({ ...base, thresholds: [t("p95", "<", 250)] });
    expect(run.thresholds).toEqual([t("p95", "<", 250)]);
    expect(ZRunCreate.parse(base).thresholds).toEqual([]);
    const summary = { ...recorded("exp1--1-replica"), thresholds: evaluateThresholds(run.thresholds, recorded("exp1--1-replica")) };
    expect(ZRunSummary.parse(summary).thresholds?.passed).toBe(true);
  });

  it("bad thresholds are issues naming thresholds.N.field and what is allowed", () => {
    expect(issuesOf({ ...base, thresholds: [{ metric: "p96", op: "<", value: 1 }] })).toEqual([
      { path: "thresholds.0.metric", message: "metric must be one of: rps, p50, p90, p95, p99, max, errorRate, checks" },
    ]);
    expect(issuesOf({ ...base, thresholds: [t("p95", "<", 1), { metric: "rps", op: "=>", value: -1 }] })).toEqual([
      { path: "thresholds.1.op", message: "op must be one of: < <= > >=" },
      { path: "thresholds.1.value", message: "value must be a number ≥ 0" },
    ]);
    expect(issuesOf({ ...base, thresholds: [{ metric: "rps", op: "<", value: 1, unit: "s" }] })[0]).toEqual({
      path: "thresholds.0",
      message: "unknown field thresholds[].unit: check the spelling (fields: metric, op, value)",
    });
    expect(issuesOf({ ...base, thresholds: Array.from({ length: 21 }, () => t("p95", "<", 1)) })).toEqual([
      { path: "thresholds", message: "thresholds may list at most 20 thresholds" },
    ]);
  });

  it("checks needs a k6 script", () => {
    expect(issuesOf({ ...base, thresholds: [t("p95", "<", 1), t("checks", ">=", 0.99)] })).toEqual([
      {
        path: "thresholds.1.metric",
        message:
          "thresholds.1.metric checks is the pass rate of a k6 script's checks, and this run has no workload.script; without one: rps, p50, p90, p95, p99, max, errorRate",
      },
    ]);
    const script = { ...base, workload: { vus: 1, durationSeconds: 5, script: "export default function () {}" } };
    expect(issuesOf({ ...script, thresholds: [t("checks", ">=", 0.99)] })).toEqual([]);
  });

  it("an experiment's thresholds: per-run ones and comparisons, each refused by its own fields", () => {
    expect(ZExperimentThresholds.parse([t("p95", "<", 250), { metric: "rps", compare: "baseline", worseBy: 5 }])).toEqual([
      t("p95", "<", 250),
      { metric: "rps", compare: "baseline", worseBy: 5, p: 0.05 },
    ]);
    const issues = (value: unknown) => {
      const r = ZExperimentThresholds.safeParse(value);
      return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    };
    expect(issues([{ metric: "rps", compare: "baseline", worseBy: 2000, p: 2 }])).toEqual([
      { path: "0.worseBy", message: "worseBy must be between 0 and 1000 (percent)" },
      { path: "0.p", message: "p must be between 0 and 1" },
    ]);
    expect(issues([{ metric: "errorRate", compare: "baseline", worseBy: 5 }])[0]!.message).toMatch(
      /^metric of a comparison threshold must be one of: rps, p50, p90, p95, p99, max/,
    );
    expect(issues([{ metric: "p95", compare: "previous", worseBy: 5 }])).toEqual([
      { path: "0.compare", message: 'compare must be "baseline"' },
    ]);
    expect(issues([{ metric: "p95", op: "<" }])).toEqual([{ path: "0.value", message: "value must be a number ≥ 0" }]);
    expect(issues("p95<250")).toEqual([{ path: "", message: "thresholds must be an array" }]);
  });

  it("ZThresholds shows its example in JSON Schema", () => {
    expect(JSON.stringify(ZThresholds.toJSONSchema())).toContain('"examples":[[{"metric":"p95","op":"<","value":250}]]');
  });
});

describe("thresholdFigure", () => {
  it("shows each metric in its unit", () => {
    expect(thresholdFigure("p95", 312.456)).toBe("312 ms");
    expect(thresholdFigure("p95", 15.953)).toBe("15.95 ms");
    expect(thresholdFigure("rps", 15702.7)).toBe("15,703 req/s");
    expect(thresholdFigure("errorRate", 0.008328)).toBe("0.833 %");
    expect(thresholdFigure("checks", null)).toBe("—");
  });
});
