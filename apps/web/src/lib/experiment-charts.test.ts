import type { TExperimentComparison } from "@scalelab/scenarios/analysis";
import { describe, expect, it } from "vitest";
import { barChartHeight, barRows, comparisonRows, heatShade, heatTables, niceTicks, shortField } from "./experiment-charts";

const d = (mean: number | null, sd: number | null = null, ci: [number, number] | null = null, n = 3) => ({
  n,
  mean,
  sd,
  ciLow: ci?.[0] ?? null,
  ciHigh: ci?.[1] ?? null,
});

const variant = (index: number, name: string, axes: Record<string, number | string | boolean>, rps: ReturnType<typeof d>) => ({
  index,
  name,
  axes,
  statistics: { metrics: { rps } },
});

describe("barRows", () => {
  const variants = [
    variant(0, "a", {}, d(100, 10, [80, 120])),
    variant(1, "b", {}, d(30, 20, [-10, 70])),
    variant(2, "c", {}, d(null, null, null, 0)),
  ];

  it("gives the CI as offsets from the mean, cut at zero", () => {
    expect(barRows(variants, "rps", "ci", "a")).toEqual([
      { name: "a", mean: 100, err: [20, 20], n: 3, baseline: true, low: 80, high: 120 },
      { name: "b", mean: 30, err: [30, 40], n: 3, baseline: false, low: 0, high: 70 },
      { name: "c", mean: null, err: [0, 0], n: 0, baseline: false, low: null, high: null },
    ]);
  });

  it("gives ± one sd, cut at zero", () => {
    const rows = barRows(variants, "rps", "sd", null);
    expect(rows.map((r) => r.err)).toEqual([
      [10, 10],
      [20, 20],
      [0, 0],
    ]);
    expect(rows.every((r) => !r.baseline)).toBe(true);
    expect(barRows([variant(0, "a", {}, d(10, 15))], "rps", "sd", null)[0]!.err).toEqual([10, 15]);
  });

  it("shows no spread from a single run", () => {
    expect(barRows([variant(0, "a", {}, d(50, null, null, 1))], "rps", "ci", "a")[0]).toMatchObject({ mean: 50, err: [0, 0], low: null });
  });

  it("sizes the chart by its bars", () => {
    expect(barChartHeight(0)).toBe(barChartHeight(1));
    expect(barChartHeight(20)).toBeGreaterThan(barChartHeight(2));
  });
});

describe("heatTables", () => {
  const sweep = [
    { field: "topology.service.replicas", values: [1, 2] },
    { field: "workload.vus", values: [4, 8, 16] },
  ];
  const grid = sweep[0]!.values.flatMap((r) => sweep[1]!.values.map((c) => ({ replicas: r, vus: c })));

  it("lays the first axis out in rows and the second in columns", () => {
    const variants = grid.map((p, i) =>
      variant(
        i,
        `replicas=${p.replicas} · vus=${p.vus}`,
        { "topology.service.replicas": p.replicas, "workload.vus": p.vus },
        d(p.replicas * p.vus),
      ),
    );
    const [t, ...rest] = heatTables(variants, sweep, undefined);
    expect(rest).toEqual([]);
    expect(t).toMatchObject({
      title: null,
      rowField: "topology.service.replicas",
      colField: "workload.vus",
      rows: [1, 2],
      cols: [4, 8, 16],
      min: 4,
      max: 32,
    });
    expect(t!.cells.map((row) => row.map((c) => c?.mean))).toEqual([
      [4, 8, 16],
      [8, 16, 32],
    ]);
    expect(t!.cells[1]![2]).toEqual({ variant: "replicas=2 · vus=16", mean: 32, n: 3 });
  });

  it("makes one grid per defined variant", () => {
    const variants = ["x", "y"].flatMap((name, g) =>
      grid.map((p, i) =>
        variant(g * grid.length + i, `${name} · …`, { "topology.service.replicas": p.replicas, "workload.vus": p.vus }, d(g * 100 + i)),
      ),
    );
    const tables = heatTables(variants, sweep, [{ name: "x" }, { name: "y" }]);
    expect(tables.map((t) => t.title)).toEqual(["x", "y"]);
    expect(tables[1]!.cells[0]![0]!.mean).toBe(100);
    expect(tables[1]!.min).toBe(100);
  });

  it("leaves a cell empty without a variant or a result", () => {
    const variants = [variant(0, "p", { "topology.service.replicas": 1, "workload.vus": 4 }, d(null, null, null, 0))];
    const [t] = heatTables(variants, sweep, undefined);
    expect(t!.cells[0]![0]).toEqual({ variant: "p", mean: null, n: 0 });
    expect(t!.cells[1]![2]).toBeNull();
    expect([t!.min, t!.max]).toEqual([null, null]);
  });

  it("is only for two axes", () => {
    expect(heatTables([], sweep.slice(0, 1), undefined)).toEqual([]);
  });
});

describe("heatShade", () => {
  it("goes from light to the accent, with white text at the dark end", () => {
    expect(heatShade(0, 0, 10)).toEqual({ background: "rgb(244, 247, 255)", color: "#1c2330" });
    expect(heatShade(10, 0, 10)).toEqual({ background: "rgb(47, 91, 234)", color: "#ffffff" });
    expect(heatShade(5, 5, 5)?.color).toBe("#1c2330");
    expect(heatShade(null, 0, 1)).toBeNull();
  });
  it("shortens field paths", () => {
    expect(shortField("topology.service.replicas")).toBe("replicas");
  });
});

describe("comparisonRows", () => {
  const cmp = (variantName: string, metric: TExperimentComparison["metric"]): TExperimentComparison => ({
    baseline: "a",
    variant: variantName,
    metric,
    ratio: 1,
    ciLow: 1,
    ciHigh: 1,
    pValue: 0.5,
    significant: false,
    text: "~ (p=0.500)",
    verdict: "same",
  });

  it("gives one row per variant other than the baseline, in the experiment's order", () => {
    const rows = comparisonRows(
      [cmp("c", "rps"), cmp("b", "rps"), cmp("b", "latencyMs.p95")],
      [{ name: "a" }, { name: "b" }, { name: "c" }],
      "a",
    );
    expect(rows.map((r) => r.variant)).toEqual(["b", "c"]);
    expect(Object.keys(rows[0]!.cells)).toEqual(["rps", "latencyMs.p95"]);
  });

  it("has no rows before there is anything to compare", () => {
    expect(comparisonRows([], [{ name: "a" }, { name: "b" }], "a")).toEqual([]);
  });
});

describe("niceTicks", () => {
  it("steps by 1, 2 or 5 times a power of ten up to the maximum", () => {
    expect(niceTicks(13)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(12.2)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(8)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(64)).toEqual([0, 20, 40, 60, 80]);
    expect(niceTicks(3)).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3]);
  });
  it("copes with nothing to show", () => {
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(Number.NaN)).toEqual([0, 1]);
  });
});
