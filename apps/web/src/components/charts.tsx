"use client";

import { downsampleRows } from "@scalelab/scenarios/analysis";
import { useEffect, useMemo, useState } from "react";
import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { PREVIEW_HEIGHT, PREVIEW_WIDTH, previewOf } from "~/lib/chart-preview";
import { faultMarkerLines, type Marker } from "./fault-markers";

export const PALETTE = ["#2f5bea", "#e8590c", "#2b8a3e", "#ae3ec9", "#c92a2a", "#0c8599", "#5f3dc4", "#e67700", "#495057", "#d6336c"];

/** `unit` overrides the chart's in the tooltip; `dashed` marks a reference (a limit, a size) rather than a measurement. */
export type Series = { key: string; label: string; color: string; unit?: string; dashed?: boolean };

type Row = { t: number } & Record<string, number | null>;

/** Dots make the live arrival of each second visible; above this many points they are only noise. */
const MAX_DOTS = 120;

/**
 * At most this many points per line, about as many as a chart of the 1,400 px wide page is wide in
 * pixels: a longer series is drawn as the lowest and highest value of each bucket of seconds, so a
 * 1-second peak stays visible.
 */
export const CHART_POINTS = 600;

/**
 * Whether an element has come within a screen of the viewport; once true it stays true. A run page
 * has up to a dozen charts and Recharts costs about 40 ms per chart whatever its points: the charts
 * below the first screen are drawn when scrolled near, so the first screen's charts show sooner.
 */
export function useNearViewport(): [boolean, (el: Element | null) => void] {
  // A callback ref: the element appears only once the chart has data (an empty chart has none).
  const [el, setEl] = useState<Element | null>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    if (near || !el) return;
    if (typeof IntersectionObserver === "undefined") {
      setNear(true);
      return;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setNear(true);
          observer.disconnect();
        }
      },
      { rootMargin: "600px 0px" },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [el, near]);
  return [near, setEl];
}

/** Recharts' layout of these charts: the value axis's width, the time axis's height, the legend's. */
const Y_AXIS_WIDTH = 52;
const X_AXIS_HEIGHT = 30;
const LEGEND_HEIGHT = 18;
const MARGIN = { top: 8, right: 16, bottom: 0, left: 0 };

/**
 * The chart as a plain SVG, in the server's HTML (Recharts 3 draws nothing there) and until
 * Recharts has drawn it in the browser: its lines, axes and legend where Recharts puts them.
 */
function ChartPreview({
  rows,
  series,
  unit,
  height,
  stacked,
}: {
  rows: readonly Row[];
  series: readonly Series[];
  unit: string;
  height: number;
  stacked: boolean;
}) {
  const preview = previewOf(rows, series, stacked);
  if (!preview) return <div className="chart-pending" style={{ height }} />;
  const legend = series.length > 1;
  const format = tickFormat(unit);
  const byKey = new Map(series.map((s) => [s.key, s]));
  return (
    <div className="chart-preview" style={{ height }} aria-hidden="true">
      <div
        className="chart-preview-plot"
        style={{
          top: MARGIN.top,
          left: MARGIN.left + Y_AXIS_WIDTH,
          right: MARGIN.right,
          bottom: MARGIN.bottom + X_AXIS_HEIGHT + (legend ? LEGEND_HEIGHT : 0),
        }}
      >
        <svg viewBox={`0 0 ${PREVIEW_WIDTH} ${PREVIEW_HEIGHT}`} preserveAspectRatio="none" width="100%" height="100%">
          {preview.yTicks.map((tick) => (
            <line
              key={tick.value}
              className="chart-preview-grid"
              x1={0}
              x2={PREVIEW_WIDTH}
              y1={tick.at * PREVIEW_HEIGHT}
              y2={tick.at * PREVIEW_HEIGHT}
              vectorEffect="non-scaling-stroke"
            />
          ))}
          {preview.shapes.map((shape) => {
            const s = byKey.get(shape.key);
            return (
              <g key={shape.key}>
                {shape.area && <path d={shape.area} fill={shape.color} fillOpacity={0.25} stroke="none" />}
                <path
                  className="chart-preview-line"
                  d={shape.line}
                  fill="none"
                  stroke={shape.color}
                  strokeWidth={stacked ? 1 : s?.dashed ? 1.5 : 2}
                  strokeDasharray={s?.dashed ? "6 4" : undefined}
                  vectorEffect="non-scaling-stroke"
                />
              </g>
            );
          })}
        </svg>
        {preview.yTicks.map((tick) => (
          <span key={tick.value} className="chart-preview-y" style={{ top: `${tick.at * 100}%` }}>
            {format(tick.value)}
          </span>
        ))}
        {preview.xTicks.map((tick) => (
          <span key={tick.value} className="chart-preview-x" style={{ left: `${tick.at * 100}%` }}>
            {tick.value}s
          </span>
        ))}
      </div>
      {legend && (
        <ul className="chart-preview-legend">
          {series.map((s) => (
            <li key={s.key}>
              <svg width={14} height={14} viewBox="0 0 32 32">
                <path d="M0,16h32" stroke={s.color} strokeWidth={4} fill="none" />
              </svg>
              {s.label}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const tickFormat = (unit: string) => (v: number) =>
  unit === "ms" && v >= 1000 ? `${(v / 1000).toFixed(1)}s` : `${Math.round(v * 100) / 100}`;

export function TimeChart({
  testId,
  data,
  series,
  unit,
  height = 220,
  stacked = false,
  connectNulls = false,
  empty = "Waiting for data…",
  markers,
  peaks = "minmax",
  label,
  first = false,
}: {
  testId: string;
  data: readonly Row[];
  series: readonly Series[];
  unit: string;
  height?: number;
  stacked?: boolean;
  /** Draw across seconds without a value instead of leaving a gap. */
  connectNulls?: boolean;
  empty?: string;
  /** The run's faults: a labelled vertical line at each one's second. */
  markers?: readonly Marker[];
  /** What a long series keeps of each bucket: its lowest and highest value, or its highest only (latency percentiles). */
  peaks?: "minmax" | "max";
  /** The chart's accessible name; by default what it plots, from its series. */
  label?: string;
  /** In the page's first screen: the server's HTML draws it (as a plain SVG until Recharts has drawn it). */
  first?: boolean;
}) {
  const shown = useMemo(() => downsampleRows(data, CHART_POINTS, { rule: () => peaks }), [data, peaks]);
  const [near, box] = useNearViewport();
  if (shown.length === 0) {
    return (
      <div className="chart-empty" style={{ height }} data-testid={testId} data-points={0}>
        {empty}
      </div>
    );
  }
  const dots = shown.length <= MAX_DOTS;
  const common = {
    data: shown,
    responsive: true,
    style: { width: "100%", height },
    margin: MARGIN,
  };
  const axes = (
    <>
      <CartesianGrid stroke="#eef0f3" vertical={false} />
      <XAxis
        dataKey="t"
        type="number"
        domain={["dataMin", "dataMax"]}
        allowDecimals={false}
        tickFormatter={(t: number) => `${t}s`}
        fontSize={11}
      />
      <YAxis width={Y_AXIS_WIDTH} fontSize={11} tickFormatter={tickFormat(unit)} />
      <Tooltip
        labelFormatter={(t) => `t = ${t} s`}
        formatter={(v, _name, item) => {
          if (typeof v !== "number") return String(v);
          const u = series.find((s) => s.key === item.dataKey)?.unit ?? unit;
          return `${Math.round(v * 100) / 100}${u ? ` ${u}` : ""}`;
        }}
        isAnimationActive={false}
      />
      {series.length > 1 && (
        <Legend
          iconType="plainline"
          wrapperStyle={{ fontSize: 12 }}
          itemSorter={(item) => series.findIndex((s) => s.key === item.dataKey)}
        />
      )}
      {faultMarkerLines(markers, [shown[0]!.t, shown[shown.length - 1]!.t])}
    </>
  );
  return (
    <div
      className="chart"
      role="figure"
      aria-label={label ?? `${series.map((s) => s.label).join(", ")}${unit ? ` (${unit})` : ""} per second`}
      data-testid={testId}
      data-points={shown.length}
      ref={box}
    >
      {!near ? (
        first ? (
          <ChartPreview rows={shown} series={series} unit={unit} height={height} stacked={stacked} />
        ) : (
          <div className="chart-pending" style={{ height }} />
        )
      ) : stacked ? (
        <AreaChart {...common}>
          {axes}
          {series.map((s) => (
            <Area
              key={s.key}
              dataKey={s.key}
              name={s.label}
              stackId="1"
              type="linear"
              stroke={s.color}
              fill={s.color}
              fillOpacity={0.25}
              isAnimationActive={false}
            />
          ))}
        </AreaChart>
      ) : (
        <LineChart {...common}>
          {axes}
          {series.map((s) => (
            <Line
              key={s.key}
              dataKey={s.key}
              name={s.label}
              type="linear"
              stroke={s.color}
              strokeWidth={s.dashed ? 1.5 : 2}
              strokeDasharray={s.dashed ? "6 4" : undefined}
              dot={dots && !s.dashed ? { r: 2, strokeWidth: 0, fill: s.color } : false}
              connectNulls={connectNulls}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      )}
    </div>
  );
}
