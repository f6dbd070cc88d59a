import { describe, expect, it } from "vitest";
import { historyChart, historyHref } from "./history";

const point = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  createdAt: "2026-11-26T08:00:00.000Z",
  status: "succeeded" as const,
  baseline: false,
  baselineId: null,
  verdict: null,
  rps: null,
  p95: null,
  variants: null,
  ...over,
});
const variant = (name: string, rps: number) => ({ variant: name, runs: 3, rps, p95: 1000 / rps, rpsCi: null, p95Ci: null });

describe("historyChart", () => {
  it("draws a run's figure per point, oldest first, with the baseline's place", () => {
    const chart = historyChart(
      { kind: "run", points: [point("a", { rps: 700, p95: 4 }), point("b", { rps: 340, p95: 70, baseline: true, verdict: "regressed" })] },
      "rps",
    );
    expect(chart.series).toEqual([{ key: "s0", label: "req/s" }]);
    expect(chart.rows.map((r) => [r.x, r.id, r.s0, r.verdict])).toEqual([
      [1, "a", 700, null],
      [2, "b", 340, "regressed"],
    ]);
    expect(chart.baselineX).toBe(2);
  });

  it("joins an experiment's variants by name across points, a missing variant a gap", () => {
    const chart = historyChart(
      {
        kind: "experiment",
        points: [
          point("a", { variants: [variant("1 replica", 100), variant("3 replicas", 300)] }),
          point("b", { variants: [variant("3 replicas", 290)] }),
        ],
      },
      "rps",
    );
    expect(chart.series.map((s) => s.label)).toEqual(["1 replica", "3 replicas"]);
    expect(chart.rows.map((r) => [r.s0, r.s1])).toEqual([
      [100, 300],
      [null, 290],
    ]);
    expect(chart.baselineX).toBeNull();
  });

  it("links a name's page with the name encoded", () => {
    expect(historyHref("experiment", "a & b")).toBe("/history?name=a%20%26%20b&kind=experiment");
  });
});
