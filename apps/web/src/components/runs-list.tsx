"use client";

import { balancerLabel, isTerminal } from "@scalelab/scenarios/contract";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { formatMs, formatPct, formatRps, formatTimestamp, loadLabel } from "~/lib/format";
import { useTRPC } from "~/trpc/client";
import { StatusBadge, stepLabel } from "./status";
import { ScrollBox } from "./scroll-region";

export function RunsList() {
  const trpc = useTRPC();
  const router = useRouter();
  const [selected, setSelected] = useState<string[]>([]);
  const runs = useQuery({
    ...trpc.runs.list.queryOptions({}),
    refetchInterval: (q) => (q.state.data?.items.some((r) => !isTerminal(r.status)) ? 2_000 : 15_000),
  });

  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const compare = () => router.push(`/compare?ids=${selected.join(",")}`);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Runs</h1>
          <div className="sub">Select two or more finished runs to compare them side by side.</div>
        </div>
        <div className="actions">
          <button className="btn" data-testid="compare-selected" disabled={selected.length < 2} onClick={compare}>
            Compare{selected.length > 0 ? ` (${selected.length})` : ""}
          </button>
          <Link className="btn btn-primary" href="/runs/new" data-testid="new-run">
            New run
          </Link>
        </div>
      </div>

      <ScrollBox label="Runs" className="panel" style={{ padding: 0 }}>
        {runs.isPending ? (
          <div className="empty">Loading…</div>
        ) : runs.isError ? (
          <div className="empty error-box">Could not load runs: {runs.error.message}</div>
        ) : runs.data.items.length === 0 ? (
          <div className="empty">
            No runs yet. <Link href="/runs/new">Start the first one.</Link>
          </div>
        ) : (
          <table className="data" data-testid="runs-table">
            <thead>
              <tr>
                <th style={{ width: 36 }} aria-label="Select" />
                <th>Name</th>
                <th>Status</th>
                <th>Step</th>
                <th>Setup</th>
                <th className="num">Req/s</th>
                <th className="num">p95</th>
                <th className="num">Error rate</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.items.map((r) => {
                const s = r.topology.service;
                const name = r.name ?? r.id.slice(0, 8);
                return (
                  <tr key={r.id} data-testid="run-row" data-run-id={r.id} data-run-name={r.name ?? ""}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select ${name}`}
                        data-testid="run-select"
                        checked={selected.includes(r.id)}
                        onChange={() => toggle(r.id)}
                      />
                    </td>
                    <td className="name">
                      <Link href={`/runs/${r.id}`}>{name}</Link>
                    </td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td className="muted" title={r.error ?? undefined}>
                      {r.status === "succeeded"
                        ? ""
                        : isTerminal(r.status)
                          ? `stopped in ${stepLabel(r.step).toLowerCase()}`
                          : stepLabel(r.step)}
                    </td>
                    <td className="muted">
                      {s.replicas}× {s.cpus === undefined ? "unlimited" : `${s.cpus} CPU`} · {balancerLabel(r.topology.balancer)} ·{" "}
                      {r.workload.endpoint} · {loadLabel(r.workload)}
                    </td>
                    <td className="num">{formatRps(r.summary?.rps)}</td>
                    <td className="num">{formatMs(r.summary?.latencyMs.p95)}</td>
                    <td className="num">{formatPct(r.summary?.errorRate)}</td>
                    <td className="muted">{formatTimestamp(r.createdAt)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </ScrollBox>
    </>
  );
}
