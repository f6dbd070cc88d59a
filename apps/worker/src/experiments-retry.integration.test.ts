import { experimentProgress } from "@scalelab/scenarios/experiments";
import { TRunStatus } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { PrepareImages } from "./pipeline/context";
import { experimentHelpers } from "./testing/experiments";
import { useLabWorker } from "./testing/lab";

/*
 * A run of an experiment that fails is run again once, as a new run of the same variant and
 * repetition, through the real queue, worker, Postgres and Redis. What fails is beside the point:
 * this worker's image step always refuses, so every attempt fails the same way.
 */
const refuseImages: PrepareImages = async () => {
  throw new Error("images unavailable (this test's stand-in for a failing step)");
};
const ctx = useLabWorker("experiments-retry", { prepareImages: refuseImages });
const { createExperiment, finishedRuns } = experimentHelpers(() => ctx.lab);

describe("a failed run of an experiment", () => {
  it("is retried once as a new run; failing again, the experiment is failed and says which slot is missing", async () => {
    const { id } = await createExperiment({
      name: "experiment: retry",
      base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { vus: 1, durationSeconds: 5 } },
      repetitions: 1,
      settleSeconds: 0,
    });
    const runs = await finishedRuns(id, 2);
    expect(runs.map((r) => [r.attempt, r.status, r.error])).toEqual([
      [1, "failed", expect.stringContaining("images unavailable")],
      [2, "failed", expect.stringContaining("images unavailable")],
    ]);
    expect(runs[1]!.variant).toBe(runs[0]!.variant);
    expect(runs[1]!.repetition).toBe(runs[0]!.repetition);
    const events = await ctx.lab.db.runEvent.findMany({ where: { runId: runs[0]!.id } });
    expect(events.map((e) => e.message)).toContain(`failed: retried once as run ${runs[1]!.id}`);
    // No third attempt comes.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await ctx.lab.db.run.count({ where: { experimentId: id } })).toBe(2);
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
      { planned: 1, variants: 1, repetitions: 1, cancelRequested: false, settleSeconds: 0, now: Date.now() },
    );
    expect(status).toBe("failed");
    expect(progress).toMatchObject({ failed: 2, retries: 1, missing: 1 });
  });
});
