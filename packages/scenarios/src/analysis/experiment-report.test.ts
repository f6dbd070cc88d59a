import { TRunSummary } from "../contract/results";
import { TRunStatus } from "../contract/status";
import { describe, expect, it } from "vitest";
import { experimentStatistics, metricOf } from "./experiment-report";

const summary = (rps: number, p95: number): TRunSummary => ({
  requests: Math.round(rps * 10),
  rps,
  errors: 0,
  errorRate: 0,
  latencyMs: { avg: p95 / 2, p50: p95 / 2, p90: p95 * 0.9, p95, p99: p95 * 1.2, max: p95 * 2 },
});
const run = (variant: number, rps: number, p95: number, status: TRunStatus = "succeeded") => ({
  variant,
  status,
  summary: status === "succeeded" ? summary(rps, p95) : null,
});

describe("experimentStatistics", () => {
  const variants = [
    { index: 0, name: "1 replica", axes: {} },
    { index: 1, name: "3 replicas", axes: {} },
    { index: 2, name: "1 replica again", axes: {} },
  ];
  const runs = [
    run(0, 169, 22.6),
    run(1, 450, 9.1),
    run(2, 171, 22.1),
    run(0, 165, 23.4),
    run(1, 441, 9.4),
    run(2, 166, 23.0),
    run(0, 172, 22.0),
    run(1, 0, 0, "failed"),
    run(1, 462, 8.9),
    run(2, 168, 22.9),
  ];
  const stats = experimentStatistics({ variants, baseline: 0, sweep: [], runs });

  it("describes each variant from its succeeded runs only, counting the failed one", () => {
    expect(stats.variants[1]!.runs).toBe(3);
    expect(stats.variants[1]!.failedRuns).toBe(1);
    expect(stats.variants[1]!.metrics.rps.mean).toBeCloseTo((450 + 441 + 462) / 3, 9);
    expect(stats.variants[0]!.noisy).toEqual([]);
  });

  it("3 replicas against 1 is significantly better in req/s and p95; the same setup again is ~", () => {
    const of = (variant: string, metric: string) => stats.comparisons.find((c) => c.variant === variant && c.metric === metric)!;
    expect(of("3 replicas", "rps")).toMatchObject({ baseline: "1 replica", significant: true, verdict: "better" });
    expect(of("3 replicas", "rps").ratio).toBeCloseTo(2.67, 1);
    expect(of("3 replicas", "latencyMs.p95")).toMatchObject({ significant: true, verdict: "better" });
    expect(of("1 replica again", "rps")).toMatchObject({ significant: false, verdict: "same" });
    expect(of("1 replica again", "rps").text).toMatch(/^~ \(p=0\.\d{3}\)$/);
    expect(stats.comparisons.some((c) => c.metric === "errorRate")).toBe(false);
  });

  it("a variant whose repetitions vary by more than 10 % says so", () => {
    const noisy = experimentStatistics({
      variants: variants.slice(0, 1),
      baseline: 0,
      sweep: [],
      runs: [run(0, 100, 10), run(0, 150, 10), run(0, 90, 10)],
    });
    expect(noisy.variants[0]!.noisy).toEqual(["rps"]);
  });

  it("fits the USL over a replicas sweep, and says why not with too few points", () => {
    const ns = [1, 2, 3, 4, 6, 8];
    const sweep = [{ field: "topology.service.replicas", values: ns }];
    const x = (n: number) => (160 * n) / (1 + 0.05 * (n - 1) + 0.02 * n * (n - 1));
    const fitted = experimentStatistics({
      variants: ns.map((n, index) => ({ index, name: `replicas=${n}`, axes: { "topology.service.replicas": n } })),
      baseline: 0,
      sweep,
      runs: ns.map((n, i) => run(i, x(n), 10)),
    });
    expect(fitted.usl?.sigma).toBeCloseTo(0.05, 4);
    expect(fitted.usl?.kappa).toBeCloseTo(0.02, 5);
    expect(fitted.usl?.peakN).toBeCloseTo(Math.sqrt(0.95 / 0.02), 3);
    expect(fitted.usl?.curve.length).toBeGreaterThan(10);

    const few = experimentStatistics({
      variants: [1, 2, 3].map((n, index) => ({ index, name: `${n}`, axes: { "topology.service.replicas": n } })),
      baseline: 0,
      sweep: [{ field: "topology.service.replicas", values: [1, 2, 3] }],
      runs: [1, 2, 3].map((n, i) => run(i, x(n), 10)),
    });
    expect(few.usl).toBeNull();
    expect(few.uslNote).toMatch(/at least 4 distinct/);
  });

  it("with contention only (κ = 0) there is no peak; the curve levels off at λ/σ", () => {
    const ns = [1, 2, 3, 4, 6, 8];
    const x = (n: number) => (5000 * n) / (1 + 0.25 * (n - 1));
    const s = experimentStatistics({
      variants: ns.map((n, index) => ({ index, name: `replicas=${n}`, axes: { "topology.service.replicas": n } })),
      baseline: 0,
      sweep: [{ field: "topology.service.replicas", values: ns }],
      runs: ns.map((n, i) => run(i, x(n), 10)),
    });
    expect(s.usl?.peakN).toBeNull();
    expect(s.usl?.ceilingX).toBeCloseTo(20_000, -1);
  });

  it("no USL for a sweep of a knob that is not a scale", () => {
    const s = experimentStatistics({
      variants: [{ index: 0, name: "a", axes: { "workload.durationSeconds": 10 } }],
      baseline: 0,
      sweep: [{ field: "workload.durationSeconds", values: [10] }],
      runs: [run(0, 1, 1)],
    });
    expect([s.usl, s.uslNote]).toEqual([null, null]);
  });
});

describe("metricOf", () => {
  it("reads req/s, error rate and the whole-run percentiles", () => {
    const s = summary(100, 20);
    expect([metricOf(s, "rps"), metricOf(s, "latencyMs.p95"), metricOf(s, "errorRate")]).toEqual([100, 20, 0]);
  });
});
