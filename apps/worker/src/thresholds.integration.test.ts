import { experimentStatistics } from "@scalelab/scenarios/analysis";
import { ZRunSummary, TRunStatus } from "@scalelab/scenarios/contract";
import { comparisonThresholdsOf, ZExperimentCreate, TExperimentCreateInput } from "@scalelab/scenarios/experiments";
import { describe, expect, it } from "vitest";
import { experimentHelpers } from "./testing/experiments";
import { succeededRun, useLabWorker } from "./testing/lab";

/*
 * Thresholds for real, through the queue and the worker, against the real Docker engine, Postgres,
 * Redis and k6: one 5 s run at a fixed 100 req/s (the open model, so its req/s is known) with a
 * threshold that passes and one that cannot, evaluated when the run succeeds into summary.thresholds.
 */
const ctx = useLabWorker("thresholds");
const { createExperiment, finishedRuns } = experimentHelpers(() => ctx.lab);

describe("a run's thresholds", () => {
  it("are evaluated at the end into summary.thresholds with their actual figures, and said on the timeline", async () => {
    const { summary, events } = await succeededRun(ctx.lab, {
      name: "thresholds: 100 req/s",
      topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 1, memoryMb: 64 } },
      workload: { endpoint: "hostname", arrivalRate: 100, durationSeconds: 5 },
      thresholds: [
        { metric: "rps", op: ">=", value: 50 },
        { metric: "p95", op: "<", value: 0.001 },
        { metric: "errorRate", op: "<=", value: 0 },
      ],
    });
    console.log(`thresholds: ${JSON.stringify(summary.thresholds)}`);
    const [rps, p95, errorRate] = summary.thresholds!.results;
    expect(summary.thresholds!.passed).toBe(false);
    // The open model's 100 req/s, give or take k6's start and end.
    expect(rps).toMatchObject({ metric: "rps", op: ">=", value: 50, passed: true });
    expect(rps!.actual).toBe(summary.rps);
    expect(rps!.actual!).toBeGreaterThan(80);
    expect(rps!.actual!).toBeLessThan(110);
    // No request over a network and two containers answers in a microsecond.
    expect(p95).toMatchObject({ metric: "p95", op: "<", value: 0.001, passed: false });
    expect(p95!.actual).toBe(summary.latencyMs.p95);
    expect(p95!.actual!).toBeGreaterThan(0.001);
    expect(errorRate).toEqual({ metric: "errorRate", op: "<=", value: 0, actual: 0, passed: true });
    expect(events).toContainEqual(expect.stringMatching(/^1 of 3 threshold\(s\) failed: p95<0\.001 \(actual [\d.]+\)$/));
  });

  it("a run without thresholds has no summary.thresholds", async () => {
    const { summary } = await succeededRun(ctx.lab, {
      name: "thresholds: none",
      topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 1, memoryMb: 64 } },
      workload: { endpoint: "hostname", arrivalRate: 20, durationSeconds: 5 },
    });
    expect(summary.thresholds).toBeUndefined();
  });
});

describe("an experiment's thresholds", () => {
  it("per-run ones reach every run's summary; a comparison fails a variant at half the baseline's req/s", async () => {
    const input: TExperimentCreateInput = {
      name: "thresholds: 40 against 20 req/s",
      base: {
        topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 1, memoryMb: 64 } },
        workload: { endpoint: "hostname", arrivalRate: 40, durationSeconds: 5 },
      },
      variants: [
        { name: "40 req/s", patch: {} },
        { name: "20 req/s", patch: { workload: { arrivalRate: 20 } } },
      ],
      repetitions: 2,
      settleSeconds: 0,
      thresholds: [
        { metric: "errorRate", op: "<", value: 0.5 },
        { metric: "rps", compare: "baseline", worseBy: 5 },
      ],
    };
    const { id } = await createExperiment(input);
    const runs = await finishedRuns(id, 4);
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    const summaries = runs.map((r) => ZRunSummary.parse(r.summary));
    for (const s of summaries)
      expect(s.thresholds).toEqual({ passed: true, results: [expect.objectContaining({ metric: "errorRate", actual: 0 })] });
    const stats = experimentStatistics({
      variants: input.variants!.map((v, index) => ({ index, name: v.name, axes: {} })),
      baseline: 0,
      sweep: [],
      runs: runs.map((r, i) => ({ variant: r.variant!, status: r.status as TRunStatus, summary: summaries[i]! })),
      thresholds: { comparison: comparisonThresholdsOf(ZExperimentCreate.parse(input)), runThresholds: true },
    });
    console.log(`experiment thresholds: ${JSON.stringify(stats.thresholds)}`);
    expect(stats.thresholds!.passed).toBe(false);
    const comparison = stats.thresholds!.results.find((r) => r.kind === "comparison")!;
    expect(comparison).toMatchObject({ variant: "20 req/s", baseline: "40 req/s", metric: "rps", passed: false });
    // Half the arrival rate: about −50 %, tested with 2 runs a side.
    expect(comparison.actual!).toBeLessThan(-40);
    expect(comparison.actual!).toBeGreaterThan(-60);
    expect(comparison.pValue!).toBeLessThan(0.05);
    expect(stats.thresholds!.results.filter((r) => r.kind === "run").map((r) => [r.variant, r.passed, r.runs])).toEqual([
      ["40 req/s", true, 2],
      ["20 req/s", true, 2],
    ]);
  });
});
