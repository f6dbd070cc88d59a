import { TRunStatus, isTerminal } from "../contract/status";
import { z } from "zod";
import { RUN_OVERHEAD_SECONDS } from "./experiments";
import { median } from "../analysis/stats";

export const EXPERIMENT_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export const ZExperimentStatus = z.enum(EXPERIMENT_STATUSES);
export type TExperimentStatus = z.infer<typeof ZExperimentStatus>;

export type TExperimentRunState = {
  variant: number;
  repetition: number;
  attempt: number;
  status: TRunStatus;
  /** Epoch ms. */
  startedAt: number | null;
  finishedAt: number | null;
  /** The run's load duration. */
  loadSeconds: number;
};

export const ZExperimentProgress = z.object({
  /** Runs planned before retries (variants × repetitions). */
  planned: z.number().int(),
  /** Runs made so far, retries included. */
  total: z.number().int(),
  finished: z.number().int(),
  succeeded: z.number().int(),
  /** Runs that failed or were interrupted (each retried once). */
  failed: z.number().int(),
  retries: z.number().int(),
  cancelled: z.number().int(),
  /** Runs queued or running. */
  left: z.number().int(),
  /** Which run is running now: its position in the queue order (1-based) of `total`. */
  current: z.number().int().nullable(),
  /** Seconds until the last run ends, from the measured overhead of the runs so far. */
  secondsLeft: z.number().int(),
  /** Slots (variant × repetition) without a succeeded run once everything ended. */
  missing: z.number().int(),
  /** Other work queued or running before this experiment's next run (one run at a time per Docker host), and its expected seconds. */
  aheadRuns: z.number().int(),
  aheadSeconds: z.number().int(),
});
export type TExperimentProgress = z.infer<typeof ZExperimentProgress>;

/**
 * The experiment's status from its runs (given in queue order): queued until one starts, running
 * while any is queued or running, then cancelled (a cancel was asked), succeeded (every variant ×
 * repetition has a succeeded run, after at most one retry) or failed (some have none).
 */
export function experimentProgress(
  runs: readonly TExperimentRunState[],
  opts: { planned: number; variants: number; repetitions: number; cancelRequested: boolean; settleSeconds: number; now: number },
): { status: TExperimentStatus; progress: TExperimentProgress } {
  const finished = runs.filter((r) => isTerminal(r.status));
  const live = runs.filter((r) => !isTerminal(r.status));
  const succeededSlots = new Set(runs.filter((r) => r.status === "succeeded").map((r) => `${r.variant}:${r.repetition}`));
  const missing = opts.variants * opts.repetitions - succeededSlots.size;
  const measured = finished
    .filter((r) => r.startedAt !== null && r.finishedAt !== null && r.status === "succeeded")
    .map((r) => (r.finishedAt! - r.startedAt!) / 1000 - r.loadSeconds);
  const overhead = measured.length > 0 ? median(measured) : RUN_OVERHEAD_SECONDS;
  let secondsLeft = 0;
  for (const r of live) {
    const whole = r.loadSeconds + overhead;
    if (r.status === "running" && r.startedAt !== null) secondsLeft += Math.max(0, whole - (opts.now - r.startedAt) / 1000);
    else secondsLeft += whole + opts.settleSeconds;
  }
  const running = runs.findIndex((r) => r.status === "running");
  let status: TExperimentStatus;
  if (live.length > 0) status = live.length === runs.length && !runs.some((r) => r.status === "running") ? "queued" : "running";
  else if (opts.cancelRequested || runs.some((r) => r.status === "cancelled")) status = "cancelled";
  else status = missing > 0 ? "failed" : "succeeded";
  return {
    status,
    progress: {
      planned: opts.planned,
      total: runs.length,
      finished: finished.length,
      succeeded: runs.filter((r) => r.status === "succeeded").length,
      failed: runs.filter((r) => r.status === "failed" || r.status === "interrupted").length,
      retries: runs.filter((r) => r.attempt > 1).length,
      cancelled: runs.filter((r) => r.status === "cancelled").length,
      left: live.length,
      current: running >= 0 ? running + 1 : null,
      secondsLeft: Math.round(secondsLeft),
      missing: live.length > 0 ? 0 : Math.max(0, missing),
      aheadRuns: 0,
      aheadSeconds: 0,
    },
  };
}

/** Whether a run that ended so gets its one retry. */
export const wantsRetry = (r: { status: TRunStatus; attempt: number }, cancelRequested: boolean): boolean =>
  !cancelRequested && r.attempt === 1 && (r.status === "failed" || r.status === "interrupted");
