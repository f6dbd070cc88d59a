"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { formatMs, formatRps, formatTimestamp } from "~/lib/format";
import { historyChart, VERDICT_LABEL, type HistoryChart } from "~/lib/history";
import type { THistory } from "~/server/baselines/types";
import { useTRPC } from "~/trpc/client";
import { PALETTE } from "./charts";
import { TableScroll } from "./scroll-region";

const BASELINE_COLOR = "#c92a2a";
const VERDICT_BADGE = { passed: "badge-succeeded", regressed: "badge-failed", cannot_tell: "badge-cancelled" } as const;

/** One metric over time: a line per series (per variant for experiments), the baseline's place marked. */
function HistoryLines({ chart, title, unit, testId }: { chart: HistoryChart; title: string; unit: "req/s" | "ms"; testId: string }) {
  const format = unit === "ms" ? formatMs : formatRps;
  const when = (x: number) => {
    const row = chart.rows[x - 1];
    return row ? formatTimestamp(row.createdAt) : String(x);
  };
  return (
    <section className="panel">
      <h2>{title}</h2>
      <div
        className="chart"
        role="figure"
        aria-label={`${title} of each point over time, oldest first${chart.baselineX !== null ? `; the baseline is point ${chart.baselineX}` : ""}`}
        data-testid={testId}
        data-points={chart.rows.length}
        data-baseline={chart.baselineX ?? ""}
      >
        <LineChart responsive data={chart.rows} style={{ width: "100%", height: 260 }} margin={{ top: 20, right: 24, bottom: 8, left: 0 }}>
          <CartesianGrid stroke="#eef0f3" />
          <XAxis
            dataKey="x"
            type="number"
            domain={[0.5, chart.rows.length + 0.5]}
            ticks={chart.rows.map((r) => r.x)}
            allowDecimals={false}
            fontSize={11}
            tickFormatter={(x: number) => `#${x}`}
          />
          <YAxis width={56} fontSize={11} tickFormatter={(v: number) => (unit === "ms" ? `${Math.round(v * 10) / 10}` : formatRps(v))} />
          <Tooltip
            isAnimationActive={false}
            labelFormatter={(x) => `#${String(x)} · ${when(Number(x))}`}
            formatter={(v) => (typeof v === "number" ? format(v) : "—")}
          />
          {chart.series.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} verticalAlign="top" align="right" height={24} />}
          {chart.baselineX !== null && (
            <ReferenceLine
              x={chart.baselineX}
              stroke={BASELINE_COLOR}
              strokeDasharray="5 4"
              label={{ value: "baseline", position: "top", fontSize: 11, fill: BASELINE_COLOR }}
            />
          )}
          {chart.series.map((s, i) => (
            <Line
              key={s.key}
              dataKey={s.key}
              name={s.label}
              stroke={PALETTE[i % PALETTE.length]}
              strokeWidth={2}
              dot={{ r: 3 }}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </div>
    </section>
  );
}

function PointsTable({ history }: { history: THistory }) {
  const experiment = history.kind === "experiment";
  return (
    <section className="panel">
      <h2>Every {history.kind}, oldest first</h2>
      <TableScroll label={`The ${history.kind}s named ${history.name}`}>
        <table className="data">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Created</th>
              <th>{experiment ? "Experiment" : "Run"}</th>
              <th>Status</th>
              {experiment && <th>Variant</th>}
              <th className="num">req/s</th>
              <th className="num">p95</th>
              <th>Against the baseline</th>
            </tr>
          </thead>
          <tbody>
            {history.points.map((p, i) => {
              const variants = p.variants ?? [{ variant: "", runs: 1, rps: p.rps, p95: p.p95, rpsCi: null, p95Ci: null }];
              return variants.map((v, j) => (
                <tr
                  key={`${p.id}-${j}`}
                  data-testid={j === 0 ? "history-point" : undefined}
                  data-baseline={p.baseline}
                  data-verdict={p.verdict ?? ""}
                >
                  {j === 0 ? (
                    <>
                      <td className="num">{i + 1}</td>
                      <td>{formatTimestamp(p.createdAt)}</td>
                      <td>
                        <Link className="mono" href={`/${history.kind}s/${encodeURIComponent(p.id)}`}>
                          {p.id.slice(0, 8)}
                        </Link>
                        {p.baseline && <strong> (baseline)</strong>}
                      </td>
                      <td>{p.status}</td>
                    </>
                  ) : (
                    <td colSpan={4} />
                  )}
                  {experiment && <td>{v.variant}</td>}
                  <td className="num">
                    {formatRps(v.rps)}
                    {v.rpsCi && (
                      <span className="muted">
                        {" "}
                        ({formatRps(v.rpsCi.low)}–{formatRps(v.rpsCi.high)})
                      </span>
                    )}
                  </td>
                  <td className="num">{formatMs(v.p95)}</td>
                  <td>
                    {j === 0 &&
                      (p.verdict ? (
                        <span className={`badge ${VERDICT_BADGE[p.verdict]}`}>{VERDICT_LABEL[p.verdict]}</span>
                      ) : (
                        <span className="muted">{p.baselineId ? "" : "no baseline then"}</span>
                      ))}
                  </td>
                </tr>
              ));
            })}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

/** A name's runs or experiments over time: req/s and p95 charts with the baseline marked, and a table with each verdict. */
export function HistoryView({ name, kind }: { name: string; kind: "run" | "experiment" }) {
  const trpc = useTRPC();
  const history = useQuery({ ...trpc.history.get.queryOptions({ name, kind }), enabled: name !== "" });
  const other = kind === "run" ? "experiment" : "run";
  const head = (
    <div className="page-head">
      <div>
        <h1 data-testid="history-name">History of “{name || "?"}”</h1>
        <div className="sub">
          {kind === "run" ? "Stand-alone runs" : "Experiments"} of this name over time; a baseline is marked on a run’s or an experiment’s
          page. <Link href={`/history?name=${encodeURIComponent(name)}&kind=${other}`}>Its {other}s</Link>
        </div>
      </div>
    </div>
  );
  if (name === "")
    return (
      <>
        {head}
        <div className="panel empty">Give a name: /history?name=…&amp;kind=run or experiment.</div>
      </>
    );
  if (history.isPending)
    return (
      <>
        {head}
        <div className="empty">Loading…</div>
      </>
    );
  if (!history.data)
    return (
      <>
        {head}
        <div className="panel empty">Could not load the history: {history.error?.message}</div>
      </>
    );
  const h = history.data;
  if (h.points.length === 0) {
    return (
      <>
        {head}
        <div className="panel empty" data-testid="history-empty">
          No {kind} is named “{name}”.
        </div>
      </>
    );
  }
  const unitOf = kind === "experiment" ? " (mean of each variant's runs)" : "";
  return (
    <>
      {head}
      <p data-testid="history-baseline">
        {h.baselineId ? (
          <>
            The baseline now:{" "}
            <Link className="mono" href={`/${kind}s/${encodeURIComponent(h.baselineId)}`}>
              {h.baselineId.slice(0, 8)}
            </Link>
            . A {kind} created while it is the baseline is checked against it.
          </>
        ) : (
          <>No baseline is marked for this name.</>
        )}
      </p>
      <div className="grid-2" style={{ marginBottom: 16 }}>
        <HistoryLines chart={historyChart(h, "rps")} title={`Throughput (req/s)${unitOf}`} unit="req/s" testId="history-rps" />
        <HistoryLines chart={historyChart(h, "p95")} title={`Latency p95 (ms)${unitOf}`} unit="ms" testId="history-p95" />
      </div>
      <PointsTable history={h} />
    </>
  );
}
