import { thresholdFigure, thresholdText, type TThresholdsOutcome } from "@scalelab/scenarios/contract";
import { experimentThresholdActual, experimentThresholdText, type TExperimentThresholdsOutcome } from "@scalelab/scenarios/analysis";
import { TableScroll } from "./scroll-region";

function Verdict({ passed }: { passed: boolean }) {
  return <span className={`badge ${passed ? "badge-succeeded" : "badge-failed"}`}>{passed ? "pass" : "fail"}</span>;
}

/** A run's thresholds, each pass or fail with the run's actual figure (summary.thresholds). */
export function RunThresholds({ outcome }: { outcome: TThresholdsOutcome }) {
  return (
    <section className="panel" data-testid="thresholds" data-passed={outcome.passed}>
      <h2>
        Thresholds <Verdict passed={outcome.passed} />
      </h2>
      <TableScroll label="Thresholds">
        <table className="data">
          <thead>
            <tr>
              <th>Threshold</th>
              <th className="num">Actual</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {outcome.results.map((r, i) => (
              <tr key={i} data-testid="threshold" data-passed={r.passed}>
                <td className="mono">{thresholdText(r)}</td>
                <td className="num">{r.actual === null ? "— (no such figure)" : thresholdFigure(r.metric, r.actual)}</td>
                <td>
                  <Verdict passed={r.passed} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

/** An experiment's thresholds: each variant's runs against the per-run ones, each variant against the baseline for the comparison ones. */
export function ExperimentThresholds({ outcome }: { outcome: TExperimentThresholdsOutcome | null }) {
  if (!outcome) return null;
  return (
    <section className="panel" data-testid="thresholds" data-passed={outcome.passed}>
      <h2>
        Thresholds <Verdict passed={outcome.passed} />
      </h2>
      {outcome.results.length === 0 ? (
        <div className="muted">No run has finished yet.</div>
      ) : (
        <TableScroll label="Thresholds">
          <table className="data">
            <thead>
              <tr>
                <th>Variant</th>
                <th>Threshold</th>
                <th>Actual</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {outcome.results.map((r, i) => (
                <tr key={i} data-testid="threshold" data-passed={r.passed}>
                  <td>{r.variant}</td>
                  <td className="mono">{experimentThresholdText(r)}</td>
                  <td>{experimentThresholdActual(r)}</td>
                  <td>
                    <Verdict passed={r.passed} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
