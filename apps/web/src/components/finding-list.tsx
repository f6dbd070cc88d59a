import { evidenceLines, type TFinding } from "@scalelab/scenarios/analysis";

/** Findings, each with its evidence in words and units (scenarios evidence.ts); a warning is tagged. Shared by the run and experiment pages. */
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
              {evidenceLines(f.evidence).map((l) => (
                <div key={l.key} data-key={l.key}>
                  <dt>{l.label}</dt>
                  <dd>{l.text}</dd>
                </div>
              ))}
            </dl>
          )}
        </li>
      ))}
    </ul>
  );
}
