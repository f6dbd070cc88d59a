"use client";

import { downsampleRows } from "@scalelab/scenarios/analysis";
import { useEffect, useMemo, useState } from "react";
import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
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
    margin: { top: 8, right: 16, bottom: 0, left: 0 },
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
      <YAxis width={52} fontSize={11} tickFormatter={tickFormat(unit)} />
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
        <div className="chart-pending" style={{ height }} />
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
