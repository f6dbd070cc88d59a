"use client";

import { LOCAL_ENGINE, type TRunCreate } from "@scalelab/scenarios/contract";
import { downsampleRows } from "@scalelab/scenarios/analysis";
import { useMemo, useState } from "react";
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { limitLines, resourceSeries, type LimitLine, type ResourceKey, type ResourceSeries } from "~/lib/container-series";
import { formatBytes, formatMs, shortContainerName } from "~/lib/format";
import { shownPlan } from "~/lib/plan";
import type { TContainerSeconds } from "~/server/runs/types";
import { CHART_POINTS, PALETTE, useNearViewport } from "./charts";
import { faultMarkerLines, type Marker } from "./fault-markers";

type Unit = "%" | "ms" | "B" | "B/s";

const FORMAT: Record<Unit, (v: number) => string> = {
  "%": (v) => `${Math.round(v * 10) / 10} %`,
  ms: (v) => formatMs(v),
  B: (v) => formatBytes(v),
  "B/s": (v) => `${formatBytes(v)}/s`,
};

/** Dots make single seconds between gaps visible; above this many points they are only noise. */
const MAX_DOTS = 120;

/**
 * One line per container over the load's seconds. A second without a reading of a container (it
 * was stopped, or Docker sent none) is a gap, not a 0. Limits are dashed horizontal lines.
 */
export function ResourceChart({
  testId,
  series,
  unit,
  limits = [],
  markers,
  empty,
  height = 220,
  label,
}: {
  testId: string;
  /** The chart's accessible name: what it plots. */
  label: string;
  series: ResourceSeries;
  unit: Unit;
  limits?: readonly LimitLine[];
  markers?: readonly Marker[];
  empty: string;
  height?: number;
}) {
  // A long run: each container's lowest and highest value per bucket of seconds (charts.tsx CHART_POINTS).
  const rows = useMemo(() => downsampleRows(series.rows, CHART_POINTS), [series.rows]);
  const [near, box] = useNearViewport();
  if (rows.length === 0 || series.keys.length === 0) {
    return (
      <div className="chart-empty" style={{ height }} data-testid={testId} data-points={0}>
        {empty}
      </div>
    );
  }
  const format = FORMAT[unit];
  const dots = rows.length <= MAX_DOTS;
  return (
    <div
      className="chart"
      role="figure"
      aria-label={`${label}: ${series.keys.join(", ")}`}
      data-testid={testId}
      data-points={rows.length}
      data-lines={series.keys.length}
      ref={box}
    >
      {!near ? (
        <div className="chart-pending" style={{ height }} />
      ) : (
        <LineChart data={rows} responsive style={{ width: "100%", height }} margin={{ top: 16, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#eef0f3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={["dataMin", "dataMax"]}
            allowDecimals={false}
            tickFormatter={(t: number) => `${t}s`}
            fontSize={11}
          />
          <YAxis width={76} fontSize={11} tickFormatter={format} />
          <Tooltip
            labelFormatter={(t) => `t = ${t} s`}
            formatter={(v) => (typeof v === "number" ? format(v) : String(v))}
            isAnimationActive={false}
          />
          {series.keys.length > 1 && <Legend iconType="plainline" wrapperStyle={{ fontSize: 12 }} />}
          {limits.map((l) => (
            <ReferenceLine
              key={`limit-${l.value}`}
              y={l.value}
              ifOverflow="extendDomain"
              stroke="#868e96"
              strokeDasharray="6 4"
              label={{ value: `${l.label} ${format(l.value)}`, position: "insideBottomRight", fontSize: 10, fill: "#868e96" }}
            />
          ))}
          {faultMarkerLines(markers)}
          {series.keys.map((k, i) => (
            <Line
              key={k}
              dataKey={k}
              name={k}
              type="linear"
              stroke={PALETTE[i % PALETTE.length]}
              strokeWidth={2}
              dot={dots ? { r: 2, strokeWidth: 0, fill: PALETTE[i % PALETTE.length] } : false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      )}
    </div>
  );
}

const CHARTS: { testId: string; title: string; key: ResourceKey; unit: Unit; limits?: "cpu" | "memory"; limitedOnly?: boolean }[] = [
  { testId: "chart-cpu", title: "CPU (% of one core)", key: "cpuPct", unit: "%", limits: "cpu" },
  // Only a container with a CPU limit can be throttled.
  { testId: "chart-throttled", title: "Time throttled (ms per second)", key: "throttledMs", unit: "ms", limitedOnly: true },
  { testId: "chart-memory", title: "Memory", key: "memBytes", unit: "B", limits: "memory" },
  { testId: "chart-net-rx", title: "Network in (bytes per second)", key: "netRxBps", unit: "B/s" },
  { testId: "chart-net-tx", title: "Network out (bytes per second)", key: "netTxBps", unit: "B/s" },
];

/**
 * Every container's resources per second of the load: CPU against its limit, time throttled,
 * memory, network in and out; narrowed to one role with the selector.
 */
export function ContainerCharts({
  run,
  seconds,
  active,
  markers,
  reading,
}: {
  run: Pick<TRunCreate, "topology" | "workload" | "faults"> & { id: string };
  seconds: readonly TContainerSeconds[];
  active: boolean;
  markers?: readonly Marker[];
  /** What the charts say while the seconds are read (or why they could not be), instead of "none recorded". */
  reading?: string;
}) {
  const [role, setRole] = useState("all");
  const planned = useMemo(() => {
    const plan = shownPlan(
      { engine: LOCAL_ENGINE, topology: run.topology, workload: run.workload, faults: run.faults, thresholds: [] },
      run.id,
    );
    return [...plan.containers, ...plan.loadgens];
  }, [run.topology, run.workload, run.faults, run.id]);
  const roles = useMemo(() => [...new Set(seconds.flatMap((s) => s.containers.map((c) => c.role)))].sort(), [seconds]);
  const limited = useMemo(() => new Set(planned.filter((c) => c.cpus !== undefined).map((c) => c.name)), [planned]);
  const shown = useMemo(
    () => new Set(seconds.flatMap((s) => s.containers.filter((c) => role === "all" || c.role === role).map((c) => c.container))),
    [seconds, role],
  );
  const series = useMemo(
    () =>
      CHARTS.map((c) =>
        resourceSeries(seconds, c.key, {
          name: shortContainerName,
          only: (s) => shown.has(s.container) && (!c.limitedOnly || limited.has(s.container)),
        }),
      ),
    [seconds, shown, limited],
  );
  const empty = reading ?? (active ? "No container statistics yet." : "No container statistics were recorded.");

  return (
    <section className="panel" data-testid="container-charts">
      <h2>
        Resources per container{" "}
        <select
          aria-label="Containers shown"
          data-testid="container-role"
          value={role}
          onChange={(e) => setRole(e.target.value)}
          style={{ marginLeft: 8 }}
        >
          <option value="all">all containers</option>
          {roles.map((r) => (
            <option key={r} value={r}>
              role {r}
            </option>
          ))}
        </select>
      </h2>
      <div className="grid-2">
        {CHARTS.map((c, i) => (
          <div key={c.testId}>
            <h3>{c.title}</h3>
            <ResourceChart
              testId={c.testId}
              label={c.title}
              series={series[i]!}
              unit={c.unit}
              limits={c.limits ? limitLines(planned, shown, c.limits) : []}
              markers={markers}
              empty={empty}
            />
          </div>
        ))}
      </div>
    </section>
  );
}
