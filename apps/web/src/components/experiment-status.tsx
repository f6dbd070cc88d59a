import type { TExperimentStatus } from "@scalelab/scenarios/experiments";

/** An experiment's status in the runs' badge colours. */
export function ExperimentStatusBadge({ status }: { status: TExperimentStatus }) {
  return (
    <span className={`badge badge-${status}`} data-testid="experiment-status" data-status={status}>
      {status}
    </span>
  );
}

export const isLive = (status: TExperimentStatus): boolean => status === "queued" || status === "running";
