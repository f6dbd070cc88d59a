import { experimentProgress } from "@scalelab/scenarios/experiments";
import { experimentStatistics } from "@scalelab/scenarios/analysis";
import { ZRunSummary, TRunStatus } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { experimentHelpers } from "./testing/experiments";
import { useLabWorker } from "./testing/lab";

/*
 * An experiment's runs through the real queue and worker (Docker, Postgres, Redis): stored and
 * queued as the web service does (experimentRecords), run interleaved with the settle pause between
 * them (experiments-retry.integration.test.ts: a failed run retried once and counted).
 */
const ctx = useLabWorker("experiments");
const { createExperiment, finishedRuns } = experimentHelpers(() => ctx.lab);

describe("an experiment through the queue", () => {
  it("2 variants × 2 repetitions run interleaved (A, B, A, B) with the settle pause between runs, and give statistics per variant", async () => {
    const { id, experiment, runIds } = await createExperiment({
      name: "experiment: interleaved",
      base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { arrivalRate: 100, durationSeconds: 5 } },
      variants: [
        { name: "1 replica", patch: {} },
        { name: "2 replicas", patch: { topology: { service: { replicas: 2 } } } },
      ],
      repetitions: 2,
      settleSeconds: 2,
    });
    const runs = await finishedRuns(id, 4);
    const timeline = runs.map((r) => `${r.variant}/${r.repetition} ${r.status} ${r.error ?? ""}`).join("\n");
    expect(
      runs.map((r) => r.status),
      timeline,
    ).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);

    const byStart = [...runs].sort((a, b) => a.startedAt!.getTime() - b.startedAt!.getTime());
    expect(byStart.map((r) => r.id)).toEqual(runIds);
    expect(byStart.map((r) => `${r.variant}:${r.repetition}`)).toEqual(["0:0", "1:0", "0:1", "1:1"]);
    for (let i = 1; i < byStart.length; i++) {
      // The settle pause comes before a run is claimed (startedAt), after the previous one ended.
      const gapMs = byStart[i]!.startedAt!.getTime() - byStart[i - 1]!.finishedAt!.getTime();
      expect(gapMs, `gap before run ${i}`).toBeGreaterThanOrEqual(2000);
    }
    for (const r of runs) expect(await ctx.lab.leftovers(r.id)).toEqual([]);

    const summaries = runs.map((r) => ZRunSummary.parse(r.summary));
    const stats = experimentStatistics({
      variants: experiment.variants.map((v, index) => ({ index, name: v.name, axes: v.axes })),
      baseline: 0,
      sweep: [],
      runs: runs.map((r, i) => ({ variant: r.variant!, status: r.status as TRunStatus, summary: summaries[i]! })),
    });
    expect(stats.variants.map((v) => v.runs)).toEqual([2, 2]);
    const rps = runs.filter((r) => r.variant === 1).map((r) => ZRunSummary.parse(r.summary).rps);
    expect(stats.variants[1]!.metrics.rps.mean).toBeCloseTo((rps[0]! + rps[1]!) / 2, 6);
    expect(stats.comparisons.find((c) => c.metric === "rps")).toMatchObject({ baseline: "1 replica", variant: "2 replicas" });
    const { status, progress } = experimentProgress(
      runs.map((r) => ({
        variant: r.variant!,
        repetition: r.repetition!,
        attempt: r.attempt,
        status: r.status as TRunStatus,
        startedAt: null,
        finishedAt: null,
        loadSeconds: 5,
      })),
      { planned: 4, variants: 2, repetitions: 2, cancelRequested: false, settleSeconds: 2, now: Date.now() },
    );
    expect(status).toBe("succeeded");
    expect(progress).toMatchObject({ total: 4, succeeded: 4, failed: 0, retries: 0, left: 0 });
  });
});
