import type { TFinding } from "@scalelab/scenarios/analysis";
import { formatValue } from "~/lib/experiment-format";

/** Findings, each with its evidence; a warning is tagged. Shared by the run and experiment pages. */
export function FindingList({ findings }: { findings: readonly TFinding[] }) {
  return (
    <ul className="findings">
      {findings.map((f, i) => (
        <li key={`${f.code}-${i}`} className={`finding-${f.level}`} data-testid="finding" data-code={f.code} data-level={f.level}>
          <div>
            {f.level === "warn" && (
              <span className="tag tag-warn" style={{ marginLeft: 0, marginRight: 6 }}>
                warning
              </span>
            )}
            {f.message}
          </div>
          {Object.keys(f.evidence).length > 0 && (
            <dl className="evidence">
              {Object.entries(f.evidence).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{formatValue(v)}</dd>
                </div>
              ))}
            </dl>
          )}
        </li>
      ))}
    </ul>
  );
}
