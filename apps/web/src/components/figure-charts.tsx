"use client";

import { FIGURE_DEFS } from "@scalelab/scenarios/components";
import type { TFigureSample } from "@scalelab/scenarios/messages";
import type { TTopology } from "@scalelab/scenarios/contract";
import { figureRows } from "~/lib/live";
import { PALETTE, TimeChart, type Series } from "./charts";
import type { Marker } from "./fault-markers";

/** A runtime model worth charting and summarising: a bounded pool, or a log writer to wait on. */
export const hasPoolModel = (t: TTopology) => t.service.workerPool > 0 || t.service.logging !== "none";

type FigureChart = { testId: string; title: string; shown: (t: TTopology) => boolean; keys: (t: TTopology) => string[] };

/** The charts of the components' figures, each shown when the run has the component it describes. */
const FIGURE_CHARTS: readonly FigureChart[] = [
  {
    testId: "chart-lag",
    title: "Consumer lag (events) and events per second",
    shown: (t) => t.downstream.mode === "async",
    keys: () => ["broker.lag", "broker.produced", "broker.consumed"],
  },
  {
    testId: "chart-pool",
    title: "Worker pool (all replicas)",
    shown: hasPoolModel,
    keys: (t) => [
      "pool.busy",
      "pool.queued",
      ...(t.service.workerPool > 0 ? ["pool.size"] : []),
      ...(t.service.queueLimit > 0 ? ["pool.rejected"] : []),
      ...(t.service.logging === "async" ? ["log.dropped"] : []),
    ],
  },
  {
    testId: "chart-downstream",
    title: "Downstream (events per second)",
    shown: (t) => t.downstream.mode === "sync",
    keys: () => ["downstream.sent", "logs.handled", "downstream.errors"],
  },
  {
    testId: "chart-balancer",
    title: "HAProxy (servers, sessions, retries and errors)",
    shown: (t) => t.balancer.kind === "haproxy",
    keys: () => ["lb.up", "lb.down", "lb.sessions", "lb.retries", "lb.errors", "lb.checkFailures"],
  },
];

/** Sizes and limits: drawn as a dashed reference, not a measurement. */
const REFERENCES = new Set(["pool.size"]);

const seriesOf = (keys: readonly string[]): Series[] =>
  keys.map((key, i) => {
    const def = FIGURE_DEFS.find((d) => d.key === key);
    return {
      key,
      label: def?.label ?? key,
      unit: def?.unit,
      color: PALETTE[i % PALETTE.length]!,
      dashed: REFERENCES.has(key) || undefined,
    };
  });

/** One panel per figure chart the run's topology calls for. */
export function FigureCharts({
  topology,
  figures,
  active,
  markers,
}: {
  topology: TTopology;
  figures: readonly TFigureSample[];
  active: boolean;
  markers?: readonly Marker[];
}) {
  return FIGURE_CHARTS.filter((c) => c.shown(topology)).map((c) => {
    const keys = c.keys(topology);
    return (
      <section className="panel" key={c.testId}>
        <h2>{c.title}</h2>
        <TimeChart
          testId={c.testId}
          data={figureRows(figures, keys)}
          unit=""
          series={seriesOf(keys)}
          markers={markers}
          empty={active ? "Waiting for the components' figures…" : "No figures were recorded."}
        />
      </section>
    );
  });
}
