"use client";

import type { TMetricKey, TUslResult } from "@scalelab/scenarios/analysis";
import { useState } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  ComposedChart,
  ErrorBar,
  Legend,
  Line,
  Rectangle,
  ReferenceLine,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { barChartHeight, barRows, niceTicks, shortField, type BarRow, type ErrorMode } from "~/lib/experiment-charts";
import { formatCoefficient, type MetricUnit } from "~/lib/experiment-format";
import { formatMs, formatRps } from "~/lib/format";
import type { TExperimentView } from "~/server/experiments/types";
import { PALETTE } from "./charts";

const BASELINE_COLOR = "#495057";
const BAR_COLOR = PALETTE[0]!;

const tick = (unit: MetricUnit) => (v: number) =>
  unit === "ms" && v >= 1000 ? `${(v / 1000).toFixed(1)}s` : `${Math.round(v * 100) / 100}`;
const formatOne = (unit: MetricUnit, v: number | null) => (unit === "ms" ? formatMs(v) : formatRps(v));

/** Long variant names ("replicas=2 · vus=8 · cpus=0.5") are cut in the axis; the tooltip has them whole. */
const cut = (name: string, max = 48) => (name.length > max ? `${name.slice(0, max - 1)}…` : name);

function BarTooltip({
  active,
  payload,
  unit,
  mode,
}: {
  active?: boolean;
  payload?: readonly { payload?: BarRow }[];
  unit: MetricUnit;
  mode: ErrorMode;
}) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <div className="chart-tooltip">
      <strong>{row.name}</strong>
      {row.baseline && <span className="muted"> (baseline)</span>}
      <div>
        mean {formatOne(unit, row.mean)} from {row.n} run{row.n === 1 ? "" : "s"}
      </div>
      {row.low !== null && row.high !== null ? (
        <div className="muted">
          {mode === "ci" ? "95 % CI" : "± sd"}: {formatOne(unit, row.low)} – {formatOne(unit, row.high)}
        </div>
      ) : (
        row.mean !== null && <div className="muted">one run: no spread to show</div>
      )}
    </div>
  );
}

/** A horizontal bar per variant (names stay readable from 1 to 50 variants) with its error bar. */
function MetricBars({
  view,
  metric,
  unit,
  mode,
  testId,
  label,
}: {
  label: string;
  view: TExperimentView;
  metric: TMetricKey;
  unit: MetricUnit;
  mode: ErrorMode;
  testId: string;
}) {
  const rows = barRows(view.variants, metric, mode, view.baseline);
  const height = barChartHeight(rows.length);
  const withData = rows.filter((r) => r.mean !== null).length;
  if (withData === 0) {
    return (
      <div className="chart-empty" style={{ height: Math.min(height, 160) }} data-testid={testId} data-bars={0}>
        No succeeded runs yet.
      </div>
    );
  }
  // Up to 200 px; a longer name wraps onto a second line (a bar's row is 30 px).
  const labelWidth = Math.min(200, Math.max(56, Math.max(...rows.map((r) => cut(r.name).length)) * 6.6 + 16));
  return (
    <div className="chart" role="figure" aria-label={`${label}: the mean of each variant`} data-testid={testId} data-bars={withData}>
      <BarChart
        layout="vertical"
        data={rows}
        responsive
        style={{ width: "100%", height }}
        margin={{ top: 4, right: 24, bottom: 0, left: 0 }}
        barCategoryGap="22%"
      >
        <CartesianGrid stroke="#eef0f3" horizontal={false} />
        <XAxis type="number" fontSize={11} tickFormatter={tick(unit)} domain={[0, "auto"]} allowDecimals />
        <YAxis type="category" dataKey="name" width={labelWidth} fontSize={11} interval={0} tickFormatter={(n: string) => cut(n)} />
        <Tooltip content={<BarTooltip unit={unit} mode={mode} />} cursor={{ fill: "#f3f5f8" }} isAnimationActive={false} />
        <Bar
          dataKey="mean"
          isAnimationActive={false}
          maxBarSize={22}
          shape={(props) => (
            <Rectangle {...props} fill={(props.payload as BarRow | undefined)?.baseline ? BASELINE_COLOR : BAR_COLOR} fillOpacity={0.85} />
          )}
        >
          <ErrorBar dataKey="err" width={5} strokeWidth={1.5} stroke="#1c2330" direction="x" isAnimationActive={false} />
        </Bar>
      </BarChart>
    </div>
  );
}

/** Mean req/s and p95 per variant with error bars: the mean's 95 % CI (the default) or ± one sd. */
export function ExperimentBars({ view }: { view: TExperimentView }) {
  const [mode, setMode] = useState<ErrorMode>("ci");
  const what = mode === "ci" ? "95 % confidence interval of the mean (on the log scale)" : "± one standard deviation of the runs";
  return (
    <section className="panel" data-testid="experiment-bars" data-error-bars={mode}>
      <div className="panel-head">
        <h2>
          Per variant<span className="h2-hint"> — bars are means, whiskers the {what}; the baseline is grey</span>
        </h2>
        <div className="segmented" role="radiogroup" aria-label="Error bars">
          {(
            [
              ["ci", "95 % CI"],
              ["sd", "± sd"],
            ] as const
          ).map(([value, label]) => (
            <label key={value} data-testid={`error-bars-${value}`}>
              <input type="radio" name="error-bars" value={value} checked={mode === value} onChange={() => setMode(value)} />
              {label}
            </label>
          ))}
        </div>
      </div>
      <div className="grid-2 charts-2">
        <div>
          <h3>Throughput (req/s)</h3>
          <MetricBars view={view} metric="rps" unit="req/s" mode={mode} testId="bars-rps" label="Throughput (req/s)" />
        </div>
        <div>
          <h3>Latency p95 (ms)</h3>
          <MetricBars view={view} metric="latencyMs.p95" unit="ms" mode={mode} testId="bars-p95" label="Latency p95 (ms)" />
        </div>
      </div>
    </section>
  );
}

function UslTooltip({
  active,
  payload,
  field,
}: {
  active?: boolean;
  payload?: readonly { name?: unknown; payload?: { n: number; x: number } }[];
  field: string;
}) {
  if (!active || !payload || payload.length === 0) return null;
  return (
    <div className="chart-tooltip">
      {payload.map((p, i) =>
        p.payload ? (
          <div key={i}>
            <span className="muted">{String(p.name)}:</span> {shortField(field)} = {formatCoefficient(p.payload.n)} →{" "}
            {formatRps(p.payload.x)} req/s
          </div>
        ) : null,
      )}
    </div>
  );
}

/** The USL fitted over a sweep of a scale knob: the runs' throughput (dots), the fitted curve, its peak. */
export function UslChart({ usl }: { usl: TUslResult }) {
  const label = shortField(usl.field);
  const ns = [...usl.points.map((p) => p.n), ...usl.curve.map((p) => p.n)];
  const ticks = niceTicks(Math.max(...ns, usl.peakN ?? 0));
  return (
    <div
      className="chart"
      role="figure"
      aria-label={`Throughput (req/s) over ${label}: the runs and the fitted USL curve`}
      data-testid="usl-plot"
      data-points={usl.points.length}
    >
      <ComposedChart responsive style={{ width: "100%", height: 280 }} margin={{ top: 20, right: 24, bottom: 16, left: 0 }}>
        <CartesianGrid stroke="#eef0f3" />
        <XAxis
          type="number"
          dataKey="n"
          domain={[0, ticks[ticks.length - 1]!]}
          ticks={ticks}
          fontSize={11}
          label={{ value: `N (${label})`, position: "insideBottom", offset: -8, fontSize: 11, fill: "#647084" }}
        />
        <YAxis type="number" dataKey="x" width={56} fontSize={11} tickFormatter={(v: number) => formatRps(v)} />
        <Tooltip content={<UslTooltip field={usl.field} />} isAnimationActive={false} />
        <Legend wrapperStyle={{ fontSize: 12 }} verticalAlign="top" align="right" height={24} />
        <Line
          data={usl.curve}
          dataKey="x"
          name="USL fit"
          type="monotone"
          stroke={PALETTE[1]}
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
        <Scatter data={usl.points} dataKey="x" name="runs" fill={PALETTE[0]} isAnimationActive={false} />
        {usl.ceilingX !== null && (
          <ReferenceLine
            y={usl.ceilingX}
            stroke={PALETTE[4]}
            strokeDasharray="5 4"
            label={{ value: `levels off at λ/σ ≈ ${formatRps(usl.ceilingX)}`, position: "insideTopRight", fontSize: 11, fill: PALETTE[4] }}
          />
        )}
        {usl.peakN !== null && (
          <ReferenceLine
            x={usl.peakN}
            stroke={PALETTE[4]}
            strokeDasharray="5 4"
            label={{ value: `N* ≈ ${formatCoefficient(usl.peakN)}`, position: "top", fontSize: 11, fill: PALETTE[4] }}
          />
        )}
      </ComposedChart>
    </div>
  );
}
