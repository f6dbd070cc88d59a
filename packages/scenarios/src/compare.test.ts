import { describe, expect, it } from "vitest";
import { compareRuns, formatRatio, overlaySeries, ratioTo, setupRows, verdictOf } from "./compare";
import { ZRunCreate, type TRunSummary, type TSample } from "./schemas";

const summary = (rps: number, p95: number, errors = 0): TRunSummary => ({
  requests: rps * 10,
  rps,
  errors,
  errorRate: errors / (rps * 10),
  latencyMs: { avg: p95 / 2, p50: p95 / 3, p90: p95 * 0.9, p95, p99: p95 * 1.5, max: p95 * 4 },
});

const sample = (t: number, requests: number, p95: number): TSample => ({
  t,
  requests,
  errors: 0,
  latencyMs: { avg: 1, p50: 1, p90: 1, p95, p99: 1, max: 1 },
});

describe("compareRuns", () => {
  // Experiment 3: one replica at 0.2 CPU vs three behind nginx.
  const rows = compareRuns([
    { id: "one", summary: summary(169, 22.6) },
    { id: "three", summary: summary(450, 9.1) },
  ]);
  const row = (key: string) => rows.find((r) => r.key === key)!;

  it("gives every figure per run with its ratio to the first run", () => {
    expect(row("rps").cells.map((c) => c.value)).toEqual([169, 450]);
    expect(row("rps").cells[1]!.ratio).toBeCloseTo(450 / 169);
    expect(formatRatio(row("rps").cells[1]!.ratio)).toBe("2.7×");
    expect(row("rps").cells[0]).toMatchObject({ ratio: 1, verdict: "baseline" });
  });

  it("judges a ratio by the figure's direction", () => {
    expect(row("rps").cells[1]!.verdict).toBe("better");
    expect(row("latency.p95").cells[1]!.verdict).toBe("better");
    expect(row("latency.p95").cells[1]!.ratio).toBeCloseTo(9.1 / 22.6);
  });

  it("takes each run's percentiles from its own summary, never combining runs", () => {
    expect(row("latency.p99").cells.map((c) => c.value)).toEqual([22.6 * 1.5, 9.1 * 1.5]);
  });

  it("reports the error rate in percent", () => {
    const [r] = compareRuns([{ id: "a", summary: summary(100, 10, 50) }]).filter((r) => r.key === "errorRate");
    expect(r!.cells[0]!.value).toBeCloseTo(5);
  });

  it("leaves runs without a summary empty instead of zero", () => {
    const [rps] = compareRuns([
      { id: "a", summary: summary(100, 10) },
      { id: "b", summary: null },
    ]);
    expect(rps!.cells[1]).toEqual({ runId: "b", value: null, ratio: null, verdict: "unknown" });
  });
});

describe("ratios", () => {
  it("handles a zero baseline", () => {
    expect(ratioTo(0, 0)).toBe(1);
    expect(ratioTo(0, 5)).toBeNull();
  });

  it("treats differences within 2 % as the same", () => {
    expect(verdictOf(1.01, "higher")).toBe("same");
    expect(verdictOf(0.5, "higher")).toBe("worse");
    expect(verdictOf(0.5, "none")).toBe("neutral");
    expect(verdictOf(0.5, "lower")).toBe("better");
  });

  it.each([
    [2.6316, "2.6×"],
    [0.4523, "0.45×"],
    [12.4, "12×"],
    [null, "—"],
    [Number.POSITIVE_INFINITY, "—"],
  ])("formats %s as %s", (ratio, text) => {
    expect(formatRatio(ratio)).toBe(text);
  });
});

describe("setupRows", () => {
  it("shows each run's configuration and flags what differs", () => {
    const a = ZRunCreate.parse({ topology: { service: { replicas: 1, cpus: 0.2 } }, workload: { endpoint: "cpu", vus: 1 } });
    const b = ZRunCreate.parse({ topology: { service: { replicas: 3 } }, workload: { endpoint: "cpu", arrivalRate: 200 } });
    const rows = setupRows([a, b]);
    const by = (key: string) => rows.find((r) => r.key === key)!;
    expect(by("replicas")).toMatchObject({ values: ["1", "3"], differs: true });
    expect(by("cpus").values).toEqual(["0.2", "unlimited"]);
    expect(by("load").values).toEqual(["1 VUs (closed)", "200 req/s (open)"]);
    expect(by("endpoint").differs).toBe(false);
  });
});

describe("overlaySeries", () => {
  it("aligns runs on the second and leaves missing seconds null", () => {
    const rows = overlaySeries(
      [
        { id: "a", samples: [sample(1, 10, 5), sample(0, 8, 4)] },
        { id: "b", samples: [sample(0, 20, 2)] },
      ],
      (s) => s.latencyMs?.p95 ?? null,
    );
    expect(rows).toEqual([
      { t: 0, a: 4, b: 2 },
      { t: 1, a: 5, b: null },
    ]);
  });
});
