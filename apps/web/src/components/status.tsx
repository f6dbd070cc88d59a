import { RUN_STEPS, type TRunStatus } from "@scalelab/scenarios/contract";

const STEP_LABELS: Record<string, string> = {
  queued: "Queued",
  preparing_images: "Images",
  provisioning: "Provisioning",
  waiting_healthy: "Health checks",
  warmup: "Warm-up",
  running: "Load",
  collecting: "Collecting",
  tearing_down: "Teardown",
  done: "Done",
};

export const stepLabel = (step: string) => STEP_LABELS[step] ?? step;

export function StatusBadge({ status }: { status: TRunStatus }) {
  return (
    <span className={`badge badge-${status}`} data-testid="run-status" data-status={status}>
      {status}
    </span>
  );
}

/** The pipeline's steps with the current one highlighted. */
export function StepProgress({ step, status }: { step: string; status: TRunStatus }) {
  const current = (RUN_STEPS as readonly string[]).indexOf(step);
  const ended = status === "succeeded";
  const tone = status === "failed" ? " failed" : status === "cancelled" || status === "interrupted" ? " stopped" : "";
  return (
    <ol className="steps" data-testid="run-steps">
      {RUN_STEPS.map((s, i) => {
        const cls = ended || i < current ? "done" : i === current ? `current${tone}` : "";
        return (
          <li key={s} className={cls} aria-current={i === current ? "step" : undefined}>
            {STEP_LABELS[s]}
          </li>
        );
      })}
    </ol>
  );
}
