import type { TRunWarning } from "@scalelab/scenarios/contract";

/** What the lab accepts but says before Start (POST /preview, the experiment's preview): e.g. CPU limits beyond the host's cores. */
export function RunWarnings({ warnings, testId = "run-warnings" }: { warnings: readonly TRunWarning[] | undefined; testId?: string }) {
  if (!warnings || warnings.length === 0) return null;
  return (
    <div className="notice" role="status" data-testid={testId}>
      {warnings.map((w) => (
        <div key={w.code} data-code={w.code}>
          <strong>Before you start:</strong> {w.message}.
        </div>
      ))}
    </div>
  );
}
