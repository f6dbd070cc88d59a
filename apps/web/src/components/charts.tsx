"use client";

import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";

export const PALETTE = ["#2f5bea", "#e8590c", "#2b8a3e", "#ae3ec9", "#c92a2a", "#0c8599", "#5f3dc4", "#e67700", "#495057", "#d6336c"];

export type Series = { key: string; label: string; color: string };

type Row = { t: number } & Record<string, number | null>;

/** Dots make the live arrival of each second visible; above this many points they are only noise. */
const MAX_DOTS = 120;

const tickFormat = (unit: string) => (v: number) => (unit === "ms" && v >= 1000 ? `${(v / 1000).toFixed(1)}s` : `${Math.round(v * 100) / 100}`);

export function TimeChart({
  testId,
  data,
  series,
  unit,
  height = 220,
  stacked = false,
  connectNulls = false,
  empty = "Waiting for data…",
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
}) {
  if (data.length === 0) {
    return (
      <div className="chart-empty" style={{ height }} data-testid={testId} data-points={0}>
        {empty}
      </div>
    );
  }
  const dots = data.length <= MAX_DOTS;
  const common = {
    data: data as Row[],
    responsive: true,
    style: { width: "100%", height },
    margin: { top: 8, right: 16, bottom: 0, left: 0 },
  };
  const axes = (
    <>
      <CartesianGrid stroke="#eef0f3" vertical={false} />
      <XAxis dataKey="t" type="number" domain={["dataMin", "dataMax"]} allowDecimals={false} tickFormatter={(t: number) => `${t}s`} fontSize={11} />
      <YAxis width={52} fontSize={11} tickFormatter={tickFormat(unit)} />
      <Tooltip
        labelFormatter={(t) => `t = ${t} s`}
        formatter={(v) => (typeof v === "number" ? `${Math.round(v * 100) / 100} ${unit}` : String(v))}
        isAnimationActive={false}
      />
      {series.length > 1 && (
        <Legend
          iconType="plainline"
          wrapperStyle={{ fontSize: 12 }}
          itemSorter={(item) => series.findIndex((s) => s.key === item.dataKey)}
        />
      )}
    </>
  );
  return (
    <div className="chart" data-testid={testId} data-points={data.length}>
      {stacked ? (
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
              strokeWidth={2}
              dot={dots ? { r: 2, strokeWidth: 0, fill: s.color } : false}
              connectNulls={connectNulls}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      )}
    </div>
  );
}
