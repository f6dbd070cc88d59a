import { regressionCheck, RegressionSide } from "@scalelab/scenarios/analysis";
import { DEFAULT_REGRESSION, ZRunSummary, TRunSummary } from "@scalelab/scenarios/contract";
import { TExperimentCreateInput } from "@scalelab/scenarios/experiments";
import { describe, expect, it } from "vitest";
import { experimentHelpers } from "./testing/experiments";
import { succeededRun, useLabWorker } from "./testing/lab";

/*
 * Issue 17's acceptance for baselines, for real (queue, worker, Docker, wrk): a named experiment of
 * a CPU-bound service (every request hashes 1000 JSON encodings; one replica at 0.2 CPU, throttled
 * at its limit), 3 repetitions of 5 s, marked as the baseline of its name; the same experiment
 * with the service at half the CPU is a regression; the same as the baseline again is not. Then
 * a run against a run. The baseline is recorded and marked as the web does it (baselines table,
 * baseline_id), and the verdict is the check GET /experiments/{id} computes on read.
 */
const ctx = useLabWorker("baselines");
const { createExperiment, finishedRuns } = experimentHelpers(() => ctx.lab);

const service = (cpus: number) => ({ replicas: 1, cpus, memoryMb: 64, cpuIterations: 1000 });
// 8 connections keep the replica throttled at its quota in every CFS period at either CPU, so its
// p95 is the throttling's wait at both (with 2, the p95 of 0.2 CPU sat near the edge: 3.5 ms, 80 ms at 0.1).
const workload = { loadgen: "wrk", connections: 8, endpoint: "cpu", durationSeconds: 5 } as const;
const NAME = "baselines: cpu-bound service";

const experiment = (cpus: number): TExperimentCreateInput => ({
  name: NAME,
  base: { topology: { balancer: { kind: "none" }, service: service(cpus) }, workload },
  variants: [{ name: "cpu-bound", patch: {} }],
  repetitions: 3,
  settleSeconds: 0,
});

/** An experiment as the regression check reads it: its variants' succeeded runs' summaries. */
async function experimentSide(id: string): Promise<RegressionSide> {
  const runs = await finishedRuns(id, 3);
  const summaries = runs.filter((r) => r.status === "succeeded").map((r) => ZRunSummary.parse(r.summary));
  return { ended: true, succeeded: summaries.length === 3, variants: [{ name: "cpu-bound", summaries }] };
}

/** Marks the experiment as the baseline of its name, and creates the next one recording it, as the web's services do. */
async function markBaseline(kind: "run" | "experiment", id: string, name: string) {
  await ctx.lab.db.baseline.upsert({
    where: { kind_name: { kind, name } },
    create: { kind, name, targetId: id },
    update: { targetId: id },
  });
}
async function nextExperiment(cpus: number) {
  const { id } = await createExperiment(experiment(cpus));
  const mark = await ctx.lab.db.baseline.findUniqueOrThrow({ where: { kind_name: { kind: "experiment", name: NAME } } });
  await ctx.lab.db.experiment.update({ where: { id }, data: { baselineId: mark.targetId } });
  return { id, baselineId: mark.targetId };
}

const rpsOf = (side: RegressionSide) => side.variants[0]!.summaries.map((s: TRunSummary) => Math.round(s.rps));

describe("baselines and regressions", () => {
  it("half the CPU of the baseline experiment is a regression (Welch, 3 runs a side); the same CPU again is not", async () => {
    const started = Date.now();
    const base = await createExperiment(experiment(0.2));
    const baseline = await experimentSide(base.id);
    expect(baseline.succeeded).toBe(true);
    await markBaseline("experiment", base.id, NAME);

    const halved = await nextExperiment(0.1);
    expect(halved.baselineId).toBe(base.id);
    const slow = await experimentSide(halved.id);
    const regressed = regressionCheck({ kind: "experiment", baselineId: base.id, settings: DEFAULT_REGRESSION, baseline, current: slow });
    console.log(`baseline req/s ${rpsOf(baseline)}, half the CPU ${rpsOf(slow)}: ${JSON.stringify(regressed)}`);
    expect(regressed.verdict).toBe("regressed");
    const rps = regressed.results.find((r) => r.metric === "rps")!;
    expect(rps).toMatchObject({ variant: "cpu-bound", baselineVariant: "cpu-bound", regressed: true, baselineRuns: 3, runs: 3 });
    // Half the CPU quota of a service throttled at its limit: about half the req/s.
    expect(rps.ratio!).toBeGreaterThan(0.35);
    expect(rps.ratio!).toBeLessThan(0.7);
    expect(rps.pValue!).toBeLessThan(0.05);

    const same = await nextExperiment(0.2);
    const again = await experimentSide(same.id);
    const passed = regressionCheck({ kind: "experiment", baselineId: base.id, settings: DEFAULT_REGRESSION, baseline, current: again });
    console.log(`the same again ${rpsOf(again)}: ${JSON.stringify(passed)}`);
    expect(passed.verdict).toBe("passed");
    expect(passed.results.every((r) => !r.regressed)).toBe(true);
    console.log(`baselines: experiments took ${Math.round((Date.now() - started) / 1000)} s`);
  });

  it("a run at half the CPU of the baseline run: regressed on the ratio alone, said to be one run a side", async () => {
    const name = "baselines: one run";
    const body = (cpus: number) => ({ name, topology: { balancer: { kind: "none" as const }, service: service(cpus) }, workload });
    const base = await succeededRun(ctx.lab, body(0.2));
    await markBaseline("run", base.id, name);
    const slow = await succeededRun(ctx.lab, body(0.1));
    const side = (s: TRunSummary): RegressionSide => ({ ended: true, succeeded: true, variants: [{ name: "run", summaries: [s] }] });
    const out = regressionCheck({
      kind: "run",
      baselineId: base.id,
      settings: DEFAULT_REGRESSION,
      baseline: side(base.summary),
      current: side(slow.summary),
    });
    console.log(`run: ${base.summary.rps} → ${slow.summary.rps} req/s: ${JSON.stringify(out)}`);
    expect(out.verdict).toBe("regressed");
    expect(out.results[0]).toMatchObject({ metric: "rps", regressed: true, pValue: null, ciLow: null });
    expect(out.results[0]!.reason).toMatch(/one run cannot tell noise from a change/);
  });
});
