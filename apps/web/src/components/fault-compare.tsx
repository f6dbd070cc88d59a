import { formatRatio, ratioTo, verdictOf } from "@scalelab/scenarios/analysis";
import type { TFaultEffect } from "@scalelab/scenarios/contract";
import type { TRunView } from "~/server/runs/types";
import { errorKindsText, faultCompareRows } from "~/lib/faults";
import { formatCount } from "~/lib/format";
import { ScrollBox } from "./scroll-region";

const secs = (s: number | null) => (s === null ? "—" : `${formatCount(s)} s`);

function EffectCell({ effect }: { effect: TFaultEffect | null }) {
  if (!effect) return <td className="num muted">—</td>;
  const kinds = errorKindsText(effect.errors);
  return (
    <td className="num">
      <div>
        <strong>{formatCount(effect.failedRequests)}</strong> failed{kinds && <span className="muted"> ({kinds})</span>}
      </div>
      <div className="muted" style={{ fontSize: 12 }}>
        shift {secs(effect.shiftSeconds)} · return {secs(effect.returnSeconds)}
      </div>
    </td>
  );
}

/**
 * The runs' faults side by side: per fault each run's failed requests (by kind) and the seconds
 * until the load shifted away and came back, then each run's failures over all its faults' windows
 * with its ratio to the first run's.
 */
export function FaultCompare({
  runs,
  colors,
  label,
}: {
  runs: readonly TRunView[];
  colors: Map<string, string>;
  label: (r: TRunView) => string;
}) {
  const { rows, totals } = faultCompareRows(runs);
  if (rows.length === 0) return null;
  const baseline = totals[0] ?? null;
  return (
    <ScrollBox as="section" label="Faults and their effects" className="panel" style={{ padding: 0 }}>
      <h2 style={{ padding: "14px 10px 0" }}>Faults and their effects</h2>
      <table className="data" data-testid="compare-faults">
        <thead>
          <tr>
            <th>Fault</th>
            {runs.map((r) => (
              <th key={r.id} className="num run-head">
                <span className="swatch" style={{ background: colors.get(r.id) }} />
                {label(r)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} data-testid="compare-fault-row">
              <td className="mono">{row.label}</td>
              {row.cells.map((c, i) => (
                <EffectCell key={runs[i]!.id} effect={c} />
              ))}
            </tr>
          ))}
          <tr data-testid="compare-fault-total">
            <td title="Requests that failed in the windows of all the run's faults (from each fault's second to the next one's)">
              <strong>Failed requests, all faults</strong>
            </td>
            {totals.map((n, i) => {
              const ratio = i === 0 ? null : ratioTo(baseline, n);
              return (
                <td key={runs[i]!.id} className="num" data-value={n ?? undefined}>
                  <strong>{formatCount(n)}</strong>
                  {i > 0 && n !== null && baseline !== null && (
                    <span className={`ratio ${verdictOf(ratio, "lower")}`} style={{ marginLeft: 8 }} title="fewer is better">
                      {n === baseline ? "the same" : `${formatCount(Math.abs(baseline - n))} ${n < baseline ? "fewer" : "more"}`} (
                      {formatRatio(ratio)})
                    </span>
                  )}
                </td>
              );
            })}
          </tr>
        </tbody>
      </table>
    </ScrollBox>
  );
}
