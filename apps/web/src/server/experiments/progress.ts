import type { Experiment, Run } from "@scalelab/db";
import type { TRunStatus } from "@scalelab/scenarios/contract";
import { experimentProgress } from "@scalelab/scenarios/experiments";

/**
 * An experiment's status and progress from its stored rows: the one mapping of rows to
 * @scalelab/scenarios' experimentProgress, used by the experiments' views and the baselines' checks.
 */

/** A run's load in seconds (its workload's durationSeconds; 30, the contract's default, when absent). */
export const loadSecondsOf = (workload: unknown): number => {
  const d = (workload as { durationSeconds?: unknown } | null)?.durationSeconds;
  return typeof d === "number" ? d : 30;
};

export type ProgressExperiment = Pick<Experiment, "plannedRuns" | "repetitions" | "cancelRequested" | "settleSeconds">;
export type ProgressRun = Pick<Run, "variant" | "repetition" | "attempt" | "status" | "startedAt" | "finishedAt" | "workload">;

/** The runs in queue order (creation, then the retries). */
export function progressOf(e: ProgressExperiment, runs: readonly ProgressRun[], variantCount: number, now = Date.now()) {
  return experimentProgress(
    runs.map((r) => ({
      variant: r.variant ?? 0,
      repetition: r.repetition ?? 0,
      attempt: r.attempt,
      status: r.status as TRunStatus,
      startedAt: r.startedAt?.getTime() ?? null,
      finishedAt: r.finishedAt?.getTime() ?? null,
      loadSeconds: loadSecondsOf(r.workload),
    })),
    {
      planned: e.plannedRuns,
      variants: variantCount,
      repetitions: e.repetitions,
      cancelRequested: e.cancelRequested,
      settleSeconds: e.settleSeconds,
      now,
    },
  );
}
