"use client";

import { formatRatio, overlaySeries } from "@scalelab/scenarios/analysis";
import { isTerminal } from "@scalelab/scenarios/contract";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, useMemo } from "react";
import { formatBytes, formatCount, formatMs, formatRps } from "~/lib/format";
import { useTRPC } from "~/trpc/client";
import { PALETTE, TimeChart } from "./charts";
import { FaultCompare } from "./fault-compare";
import { StatusBadge } from "./status";
import { ScrollBox } from "./scroll-region";

function formatFigure(unit: string, v: number | null): string {
  if (v === null) return "—";
  switch (unit) {
    case "ms":
      return formatMs(v);
    case "req/s":
      return formatRps(v);
    case "%":
      return `${v.toFixed(2)} %`;
    case "/s":
      return `${v.toFixed(1)}/s`;
    case "ms/s":
      return `${formatMs(v)}/s`;
    case "B/s":
      return `${formatBytes(v)}/s`;
    default:
      return formatCount(v);
  }
}

const GROUPS = ["Load", "Latency", "Containers (CPU, throttling, network)", "Worker pool", "Broker"] as const;

/** Which block of the table a figure belongs to, by its key. */
function groupOf(key: string): (typeof GROUPS)[number] {
  const [head, tail] = key.split(".");
  if (tail === undefined) return "Load";
  if (head === "latency") return "Latency";
  if (head === "pool") return "Worker pool";
  if (head === "broker") return "Broker";
  return "Containers (CPU, throttling, network)";
}

type Run = { id: string; name: string | null };
type SetupRow = { key: string; label: string; values: string[]; differs: boolean };

/** The setup rows in which the runs differ, first thing on the page: what the comparison is about. */
function WhatDiffers({
  rows,
  runs,
  colors,
  label,
}: {
  rows: SetupRow[];
  runs: Run[];
  colors: Map<string, string>;
  label: (r: Run) => string;
}) {
  const differing = rows.filter((r) => r.differs);
  return (
    <section className="panel differs-panel" data-testid="compare-differs">
      <h2>What differs</h2>
      <div className="differs-runs">
        {runs.map((r) => (
          <span key={r.id}>
            <span className="swatch" style={{ background: colors.get(r.id) }} />
            {label(r)}
          </span>
        ))}
      </div>
      {differing.length === 0 ? (
        <div className="muted">The runs have the same setup: any difference below is run-to-run variation.</div>
      ) : (
        <ul className="differs-list">
          {differing.map((row) => (
            <li key={row.key} data-testid={`differs-${row.key}`}>
              <strong>{row.label}</strong>
              {row.values.map((v, i) => (
                <span key={runs[i]!.id} className="differs-value" title={label(runs[i]!)}>
                  <span className="swatch" style={{ background: colors.get(runs[i]!.id) }} />
                  {v}
                </span>
              ))}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function CompareView({ ids }: { ids: string[] }) {
  const trpc = useTRPC();
  const result = useQuery({
    ...trpc.runs.compare.queryOptions({ ids }),
    enabled: ids.length >= 2,
    refetchInterval: (q) => (q.state.data?.runs.some((r) => !isTerminal(r.status)) ? 3_000 : false),
  });

  const colors = useMemo(() => new Map(ids.map((id, i) => [id, PALETTE[i % PALETTE.length]!])), [ids]);
  const rps = useMemo(
    () =>
      result.data
        ? overlaySeries(
            result.data.samples.map((s) => ({ id: s.runId, samples: s.samples })),
            (s) => s.requests,
          )
        : [],
    [result.data],
  );
  const p95 = useMemo(
    () =>
      result.data
        ? overlaySeries(
            result.data.samples.map((s) => ({ id: s.runId, samples: s.samples })),
            (s) => s.latencyMs?.p95 ?? null,
          )
        : [],
    [result.data],
  );

  if (ids.length < 2) {
    return (
      <div className="panel empty">
        Pick at least two runs in the <Link href="/">runs list</Link> to compare them.
      </div>
    );
  }
  if (result.isPending) return <div className="empty">Loading…</div>;
  if (result.isError) return <div className="panel error-box">Could not compare: {result.error.message}</div>;

  const { runs, setup } = result.data;
  // A figure no run has (no broker in any of them) is left out rather than shown as a row of dashes.
  const figures = result.data.figures.filter((f) => f.cells.some((c) => c.value !== null));
  const label = (r: Run) => r.name ?? r.id.slice(0, 8);
  const series = runs.map((r) => ({ key: r.id, label: label(r), color: colors.get(r.id)! }));
  const baseline = runs[0]!;
  const others = runs.slice(1);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Compare {runs.length} runs</h1>
          <div className="sub">
            Ratios are to the first run, <strong>{label(baseline)}</strong>. Each run&apos;s percentiles come from its own summary.
          </div>
        </div>
        <Link className="btn" href="/">
          Back to runs
        </Link>
      </div>

      {runs.some((r) => r.summary?.loadgen?.saturated) && (
        <div className="notice" data-testid="compare-loadgen-saturated" style={{ marginBottom: 16 }}>
          The load generator was saturated in{" "}
          {runs
            .filter((r) => r.summary?.loadgen?.saturated)
            .map(label)
            .join(", ")}
          : those figures are bounded by k6, not by the service, and the ratios may understate the difference.
        </div>
      )}

      <WhatDiffers rows={setup} runs={runs} colors={colors} label={label} />

      <ScrollBox as="section" label="Figures of the compared runs" className="panel" style={{ padding: 0 }}>
        <table className="data" data-testid="compare-table">
          <thead>
            <tr>
              <th>Figure</th>
              {runs.map((r, i) => (
                <th key={r.id} className="num run-head" data-testid="compare-run-header">
                  <span className="swatch" style={{ background: colors.get(r.id) }} />
                  <Link href={`/runs/${r.id}`}>{label(r)}</Link>
                  {i === 0 && <span className="muted"> (baseline)</span>}
                </th>
              ))}
              {others.map((r) => (
                <th key={`ratio-${r.id}`} className="num run-head" data-testid="ratio-header">
                  {label(r)} / {label(baseline)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              <td className="muted">Status</td>
              {runs.map((r) => (
                <td key={r.id} className="num">
                  <StatusBadge status={r.status} />
                </td>
              ))}
              {others.map((r) => (
                <td key={r.id} />
              ))}
            </tr>
            {GROUPS.map((group) => {
              const rows = figures.filter((f) => groupOf(f.key) === group);
              if (rows.length === 0) return null;
              return (
                <Fragment key={group}>
                  <tr className="group-row">
                    <td colSpan={1 + runs.length + others.length}>{group}</td>
                  </tr>
                  {rows.map((f) => (
                    <tr key={f.key} data-testid={`figure-${f.key}`}>
                      <td>{f.label}</td>
                      {f.cells.map((c) => (
                        <td key={c.runId} className="num">
                          {formatFigure(f.unit, c.value)}
                        </td>
                      ))}
                      {f.cells.slice(1).map((c) => (
                        <td key={`ratio-${c.runId}`} className="num" data-testid="ratio-cell">
                          <span
                            className={`ratio ${c.verdict}`}
                            title={f.better === "none" ? "context, not a score" : `${f.better} is better`}
                          >
                            {formatRatio(c.ratio)}
                          </span>
                        </td>
                      ))}
                    </tr>
                  ))}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </ScrollBox>

      <FaultCompare runs={runs} colors={colors} label={label} />

      <div className="grid-2" style={{ marginBottom: 16 }}>
        <section className="panel">
          <h2>Throughput (req/s)</h2>
          <TimeChart testId="compare-chart-rps" data={rps} unit="req/s" series={series} empty="No samples." />
        </section>
        <section className="panel">
          <h2>Latency p95 (ms, per second)</h2>
          <TimeChart testId="compare-chart-p95" data={p95} unit="ms" series={series} empty="No samples." />
        </section>
      </div>

      <ScrollBox as="section" label="Setups of the compared runs" className="panel" style={{ padding: 0 }}>
        <table className="data" data-testid="setup-table">
          <thead>
            <tr>
              <th>Setup</th>
              {runs.map((r) => (
                <th key={r.id} className="run-head">
                  {label(r)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {setup.map((row) => (
              <tr key={row.key} className={row.differs ? "differs" : ""} data-differs={row.differs || undefined}>
                <td className="muted">
                  {row.label}
                  {row.differs && <span className="differs-tag">differs</span>}
                </td>
                {row.values.map((v, i) => (
                  // A long value (a fault timeline) wraps instead of widening the table.
                  <td key={i} className="wrap">
                    {v}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </>
  );
}
