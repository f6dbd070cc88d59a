import { TRunStatus } from "../contract/status";
import { describe, expect, it } from "vitest";
import { experimentProgress, wantsRetry, TExperimentRunState } from "./progress";
import { RUN_OVERHEAD_SECONDS } from "./experiments";

const T0 = 1_700_000_000_000;
const run = (variant: number, repetition: number, status: TRunStatus, extra: Partial<TExperimentRunState> = {}): TExperimentRunState => ({
  variant,
  repetition,
  attempt: 1,
  status,
  startedAt: null,
  finishedAt: null,
  loadSeconds: 10,
  ...extra,
});
const opts = { planned: 4, variants: 2, repetitions: 2, cancelRequested: false, settleSeconds: 5, now: T0 };

describe("experimentProgress", () => {
  it("queued until a run starts; time left is every run's load, overhead and settle pause", () => {
    const { status, progress } = experimentProgress(
      [run(0, 0, "queued"), run(1, 0, "queued"), run(0, 1, "queued"), run(1, 1, "queued")],
      opts,
    );
    expect(status).toBe("queued");
    expect(progress).toMatchObject({ planned: 4, total: 4, finished: 0, left: 4, current: null, missing: 0 });
    expect(progress.secondsLeft).toBe(4 * (10 + RUN_OVERHEAD_SECONDS + 5));
  });

  it("running: which run, how many left, and time left from the overhead the finished runs measured", () => {
    const runs = [
      run(0, 0, "succeeded", { startedAt: T0 - 60_000, finishedAt: T0 - 40_000 }),
      run(1, 0, "running", { startedAt: T0 - 4_000 }),
      run(0, 1, "queued"),
      run(1, 1, "queued"),
    ];
    const { status, progress } = experimentProgress(runs, opts);
    expect(status).toBe("running");
    expect(progress).toMatchObject({ finished: 1, succeeded: 1, left: 3, current: 2 });
    // The finished run took 20 s for 10 s of load: 10 s of overhead.
    expect(progress.secondsLeft).toBe(20 - 4 + 2 * (20 + 5));
  });

  it("succeeded when every variant × repetition has a succeeded run, a retry counted honestly", () => {
    const runs = [
      run(0, 0, "succeeded"),
      run(1, 0, "failed"),
      run(0, 1, "succeeded"),
      run(1, 1, "succeeded"),
      run(1, 0, "succeeded", { attempt: 2 }),
    ];
    const { status, progress } = experimentProgress(runs, opts);
    expect(status).toBe("succeeded");
    expect(progress).toMatchObject({ total: 5, succeeded: 4, failed: 1, retries: 1, missing: 0 });
  });

  it("failed when a slot failed twice; the others still count", () => {
    const runs = [
      run(0, 0, "succeeded"),
      run(1, 0, "failed"),
      run(0, 1, "succeeded"),
      run(1, 1, "succeeded"),
      run(1, 0, "interrupted", { attempt: 2 }),
    ];
    const { status, progress } = experimentProgress(runs, opts);
    expect(status).toBe("failed");
    expect(progress).toMatchObject({ failed: 2, missing: 1 });
  });

  it("cancelled once a cancel was asked and nothing is left", () => {
    const runs = [run(0, 0, "succeeded"), run(1, 0, "cancelled"), run(0, 1, "cancelled"), run(1, 1, "cancelled")];
    expect(experimentProgress(runs, { ...opts, cancelRequested: true }).status).toBe("cancelled");
    expect(experimentProgress(runs.slice(0, 2).concat(run(0, 1, "queued")), { ...opts, cancelRequested: true }).status).toBe("running");
  });
});

describe("wantsRetry", () => {
  it("a first attempt that failed or was interrupted, unless the experiment is being cancelled", () => {
    expect(wantsRetry({ status: "failed", attempt: 1 }, false)).toBe(true);
    expect(wantsRetry({ status: "interrupted", attempt: 1 }, false)).toBe(true);
    expect(wantsRetry({ status: "failed", attempt: 2 }, false)).toBe(false);
    expect(wantsRetry({ status: "cancelled", attempt: 1 }, false)).toBe(false);
    expect(wantsRetry({ status: "failed", attempt: 1 }, true)).toBe(false);
  });
});
