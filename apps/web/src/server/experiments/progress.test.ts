import { describe, expect, it } from "vitest";
import { loadSecondsOf, progressOf, type ProgressRun } from "./progress";

const experiment = { plannedRuns: 2, repetitions: 1, cancelRequested: false, settleSeconds: 0 };
const run = (variant: number, status: string, over: Partial<ProgressRun> = {}): ProgressRun => ({
  variant,
  repetition: 0,
  attempt: 1,
  status,
  startedAt: new Date(0),
  finishedAt: new Date(40_000),
  workload: { durationSeconds: 10 },
  ...over,
});

describe("loadSecondsOf", () => {
  it("reads the workload's durationSeconds, 30 when it has none", () => {
    expect(loadSecondsOf({ durationSeconds: 12 })).toBe(12);
    expect(loadSecondsOf({})).toBe(30);
    expect(loadSecondsOf(null)).toBe(30);
  });
});

describe("progressOf", () => {
  it("maps the stored rows: every slot succeeded, or one failed, or one still running", () => {
    expect(progressOf(experiment, [run(0, "succeeded"), run(1, "succeeded")], 2).status).toBe("succeeded");
    const failed = progressOf(experiment, [run(0, "succeeded"), run(1, "failed")], 2);
    expect(failed.status).toBe("failed");
    expect(failed.progress).toMatchObject({ planned: 2, total: 2, succeeded: 1, failed: 1 });
    // Running since 10 s: 10 s of load + the 30 s overhead measured on the finished one = 40 s, 30 s left.
    const running = progressOf(
      experiment,
      [run(0, "succeeded"), run(1, "running", { startedAt: new Date(0), finishedAt: null })],
      2,
      10_000,
    );
    expect(running.status).toBe("running");
    expect(running.progress.secondsLeft).toBe(30);
  });
});
