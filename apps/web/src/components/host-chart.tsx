"use client";

import type { TRunSummary } from "@scalelab/scenarios/contract";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { hostRows, sampleNodes, samplesOfNode } from "~/lib/host-series";
import { useTRPC } from "~/trpc/client";
import { PALETTE, TimeChart } from "./charts";
import type { Marker } from "./fault-markers";

const fmt = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 1 });

/**
 * "Host CPU outside this run": per second of the load, the host's CPU (100 % = every core) used by
 * other work, beside the run's containers and the lab's worker; the whole-run figures under it.
 * Stored when the load is over, so it is read then (and again while the run is still collecting).
 */
export function HostChart({
  runId,
  active,
  hostNoise,
  nodeNoise,
  markers,
}: {
  runId: string;
  active: boolean;
  hostNoise?: TRunSummary["hostNoise"];
  /** On a cluster of separate machines: each node's own (TRunSummary.nodes[].hostNoise). */
  nodeNoise?: TRunSummary["nodes"];
  markers?: readonly Marker[];
}) {
  const trpc = useTRPC();
  const samples = useQuery({ ...trpc.runs.host.queryOptions({ id: runId }), refetchInterval: active ? 5_000 : false });
  // The seconds are stored when the load is over: read them once more when the run ends, since the
  // last read while it was active may have come just before.
  const wasActive = useRef(active);
  const { refetch } = samples;
  useEffect(() => {
    if (wasActive.current && !active) void refetch();
    wasActive.current = active;
  }, [active, refetch]);
  // On several nodes each has its own host: one node's seconds at a time.
  const nodes = useMemo(() => sampleNodes(samples.data ?? []), [samples.data]);
  const [picked, setPicked] = useState<string | null>(null);
  const node = picked !== null && nodes.includes(picked) ? picked : (nodes[0] ?? "local");
  const rows = useMemo(() => hostRows(samplesOfNode(samples.data ?? [], node)), [samples.data, node]);
  const noise = nodes.length > 1 ? nodeNoise?.find((n) => n.node === node)?.hostNoise : hostNoise;
  const of = nodes.length > 1 ? `node ${node}` : "the host";
  return (
    <section className="panel" data-testid="host-chart">
      <h2>
        Host CPU outside this run<span className="h2-hint"> — % of the host (all its cores), per second of the load</span>
      </h2>
      {nodes.length > 1 && (
        <div className="segmented" role="radiogroup" aria-label="Node" data-testid="host-nodes" style={{ marginBottom: 8 }}>
          {nodes.map((n) => (
            <label key={n} data-testid={`host-node-${n}`}>
              <input type="radio" name={`host-node-${runId}`} value={n} checked={n === node} onChange={() => setPicked(n)} />
              {n}
            </label>
          ))}
        </div>
      )}
      <TimeChart
        testId="chart-host"
        data={rows}
        unit="%"
        stacked
        series={[
          { key: "other", label: "other work", color: PALETTE[4]! },
          { key: "worker", label: "the lab's worker", color: PALETTE[8]! },
          { key: "run", label: "this run's containers", color: PALETTE[0]! },
        ]}
        markers={markers}
        empty={active ? "Measured during the load; shown when it is over." : "The host's CPU was not recorded for this run."}
      />
      {noise && (
        <p className="muted" data-testid="host-noise-summary" style={{ marginTop: 8 }}>
          Other work used a mean {fmt(noise.meanPct)} % of {of} ({fmt(noise.meanCores)} of its {noise.cores} cores), p95 {fmt(noise.p95Pct)}{" "}
          %, busiest second {fmt(noise.maxPct)} %, over {noise.seconds} s; the lab's worker {fmt(noise.workerMeanPct)} %.
        </p>
      )}
    </section>
  );
}
