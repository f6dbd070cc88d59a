import type { TFaultEffect, TFaultRecord } from "@scalelab/scenarios/contract";
import { formatCount, formatMs } from "~/lib/format";
import { effectGaps, errorKindsText, faultActionText } from "~/lib/faults";
import { TableScroll } from "./scroll-region";

const seconds = (s: number | null | undefined, why: string | undefined) =>
  s === null || s === undefined ? <span title={why}>—</span> : `${formatCount(s)} s`;

/**
 * Each fault of the run: when it was planned and applied (and how late), how long the engine or
 * the proxy took, and from the summary what it did to the load: the requests that failed in its
 * window, and how long until the load moved away from its target and came back.
 */
export function FaultTable(props: Parameters<typeof FaultTableContent>[0]) {
  return (
    <TableScroll label="Faults">
      <FaultTableContent {...props} />
    </TableScroll>
  );
}

function FaultTableContent({
  faults,
  effects,
  active,
}: {
  faults: readonly TFaultRecord[];
  effects: readonly TFaultEffect[] | undefined;
  active: boolean;
}) {
  const pending = active ? "after the load" : "the run has no fault effects";
  return (
    <table className="data" data-testid="fault-table">
      <thead>
        <tr>
          <th className="num">Planned</th>
          <th>Action</th>
          <th>Target</th>
          <th className="num" title="Second of the load at which it was applied, and how late">
            Applied at
          </th>
          <th className="num">Took</th>
          <th className="num" title="Requests that failed from this fault's second until the next fault's (or the end of the load)">
            Failed requests
          </th>
          <th className="num" title="Seconds from the fault until its target's share of the load fell below half its usual share">
            Shift
          </th>
          <th className="num" title="Seconds from the fault that undid it until the target had its share again">
            Return
          </th>
        </tr>
      </thead>
      <tbody>
        {faults.map((f, i) => {
          const effect = effects?.[i];
          const gaps = effect ? effectGaps(faults, i, effect) : { shift: pending, return: pending };
          const kinds = errorKindsText(effect?.errors);
          return (
            <tr key={i} data-testid={`fault-${i}`} data-applied={f.actual ? (f.actual.error ? "failed" : "yes") : "no"}>
              <td className="num">{f.at} s</td>
              <td>{faultActionText(f)}</td>
              <td className="mono">
                {f.target.role}-{f.target.index}
              </td>
              <td className="num" data-testid={`fault-applied-${i}`}>
                {f.actual ? (
                  <>
                    {(f.actual.atMs / 1000).toFixed(2)} s{" "}
                    <span className="muted">
                      ({f.actual.lagMs >= 0 ? "+" : ""}
                      {Math.round(f.actual.lagMs)} ms)
                    </span>
                  </>
                ) : (
                  <span className="muted" title={active ? "not applied yet" : "never applied: the load ended first"}>
                    —
                  </span>
                )}
              </td>
              <td className="num">
                {f.actual?.error ? (
                  <span className="field-error" style={{ color: "var(--bad)", whiteSpace: "normal" }} data-testid={`fault-error-${i}`}>
                    failed: {f.actual.error}
                  </span>
                ) : f.actual ? (
                  formatMs(f.actual.tookMs)
                ) : (
                  "—"
                )}
              </td>
              <td className="num" data-testid={`fault-failed-${i}`}>
                {effect ? (
                  <>
                    {formatCount(effect.failedRequests)}
                    {kinds && <span className="muted"> ({kinds})</span>}
                  </>
                ) : (
                  <span title={pending}>—</span>
                )}
              </td>
              <td className="num" data-testid={`fault-shift-${i}`}>
                {seconds(effect?.shiftSeconds, gaps.shift)}
              </td>
              <td className="num" data-testid={`fault-return-${i}`}>
                {seconds(effect?.returnSeconds, gaps.return)}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
