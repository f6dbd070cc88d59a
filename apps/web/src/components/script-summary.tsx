import type { TScriptSummary } from "@scalelab/scenarios/contract";
import { formatCount, formatMs, formatPct } from "~/lib/format";
import { TableScroll } from "./scroll-region";

/** The user's k6 script: each check's passes and failures (k6's end-of-test counts). */
export function ChecksTable(props: { checks: TScriptSummary["checks"] }) {
  return (
    <TableScroll label="The script's checks">
      <ChecksTableContent {...props} />
    </TableScroll>
  );
}

function ChecksTableContent({ checks }: { checks: TScriptSummary["checks"] }) {
  if (checks.length === 0) return <div className="muted">The script ran no check.</div>;
  return (
    <table className="data" data-testid="script-checks">
      <thead>
        <tr>
          <th>Check</th>
          <th className="num">Passed</th>
          <th className="num">Failed</th>
          <th className="num">Pass rate</th>
        </tr>
      </thead>
      <tbody>
        {checks.map((c) => (
          <tr key={c.name}>
            <td className="mono">{c.name}</td>
            <td className="num">{formatCount(c.passed)}</td>
            <td className="num">{formatCount(c.failed)}</td>
            <td className="num">{formatPct(c.passed + c.failed > 0 ? c.passed / (c.passed + c.failed) : null)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const formatNumber = (n: number | undefined) => (n === undefined ? "—" : n.toLocaleString("en-US", { maximumFractionDigits: 2 }));

/** A metric's whole-run values as k6's dashboard aggregates them: a time trend in ms, a rate as %. */
function metricValues(m: TScriptSummary["metrics"][number]): string {
  const v = m.values;
  switch (m.type) {
    case "counter":
      return `${formatCount(v.count)} (${(v.rate ?? 0).toFixed(1)}/s)`;
    case "rate":
      return formatPct(v.rate);
    case "gauge":
      return formatNumber(v.value);
    case "trend": {
      const show = (n: number | undefined) => (m.contains === "time" ? formatMs(n) : formatNumber(n));
      return ["avg", "med", "p(95)", "p(99)", "max"]
        .map((k) => `${k === "med" ? "p50" : k.replace(/[()]/g, "")} ${show(v[k])}`)
        .join(" · ");
    }
  }
}

/** The user's own metrics (Counter, Rate, Trend, Gauge) over the whole run. */
export function ScriptMetricsTable(props: { metrics: TScriptSummary["metrics"] }) {
  return (
    <TableScroll label="The script's metrics">
      <ScriptMetricsTableContent {...props} />
    </TableScroll>
  );
}

function ScriptMetricsTableContent({ metrics }: { metrics: TScriptSummary["metrics"] }) {
  if (metrics.length === 0) return <div className="muted">The script made no metric of its own.</div>;
  return (
    <table className="data" data-testid="script-metrics">
      <thead>
        <tr>
          <th>Metric</th>
          <th>Type</th>
          <th>Whole run</th>
        </tr>
      </thead>
      <tbody>
        {metrics.map((m) => (
          <tr key={m.name}>
            <td className="mono">{m.name}</td>
            <td>{m.type}</td>
            <td className="num">{metricValues(m)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
