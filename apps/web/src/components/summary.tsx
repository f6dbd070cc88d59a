import type { TRunSummary, TTopology, TWorkload, THostFacts } from "@scalelab/scenarios/schemas";
import { formatBytes, formatCount, formatMs, formatPct, formatRps } from "~/lib/format";

/** The whole-run figures, laid out like wrk's report. */
export function SummaryTable({ summary }: { summary: TRunSummary }) {
  const l = summary.latencyMs;
  return (
    <table className="data" data-testid="summary-table">
      <tbody>
        <tr><td>Requests</td><td className="num">{formatCount(summary.requests)}</td></tr>
        <tr><td>Requests/s</td><td className="num" data-testid="summary-rps">{formatRps(summary.rps)}</td></tr>
        <tr><td>Errors</td><td className="num">{formatCount(summary.errors)}</td></tr>
        <tr><td>Error rate</td><td className="num">{formatPct(summary.errorRate)}</td></tr>
        {summary.droppedIterations !== undefined && (
          <tr><td>Dropped iterations</td><td className="num">{formatCount(summary.droppedIterations)}</td></tr>
        )}
        <tr><td>Latency avg</td><td className="num">{formatMs(l.avg)}</td></tr>
        <tr><td>Latency p50</td><td className="num">{formatMs(l.p50)}</td></tr>
        <tr><td>Latency p90</td><td className="num">{formatMs(l.p90)}</td></tr>
        <tr><td>Latency p95</td><td className="num">{formatMs(l.p95)}</td></tr>
        <tr><td>Latency p99</td><td className="num">{formatMs(l.p99)}</td></tr>
        <tr><td>Latency max</td><td className="num">{formatMs(l.max)}</td></tr>
      </tbody>
    </table>
  );
}

export function BackendsTable({ backends }: { backends: Record<string, number> }) {
  const total = Object.values(backends).reduce((a, b) => a + b, 0);
  const rows = Object.entries(backends).sort(([a], [b]) => a.localeCompare(b));
  return (
    <table className="data">
      <thead>
        <tr><th>Backend</th><th className="num">Requests</th><th className="num">Share</th></tr>
      </thead>
      <tbody>
        {rows.map(([name, n]) => (
          <tr key={name}>
            <td className="mono">{name}</td>
            <td className="num">{formatCount(n)}</td>
            <td className="num">{formatPct(total ? n / total : null)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SetupFacts({ topology, workload }: { topology: TTopology; workload: TWorkload }) {
  const s = topology.service;
  return (
    <dl className="facts" data-testid="run-setup">
      <dt>Balancer</dt>
      <dd>
        {topology.balancer.kind} · {topology.balancer.algorithm}
        {topology.balancer.cpus !== undefined ? ` · ${topology.balancer.cpus} CPU` : ""}
      </dd>
      <dt>Replicas</dt>
      <dd>{s.replicas}</dd>
      <dt>CPU per replica</dt>
      <dd>{s.cpus === undefined ? "unlimited" : s.cpus}</dd>
      <dt>Memory per replica</dt>
      <dd>{s.memoryMb} MB</dd>
      <dt>Threads</dt>
      <dd>{s.threads ?? "one per CPU"}</dd>
      <dt>Endpoint</dt>
      <dd>
        {workload.endpoint}
        {workload.endpoint === "cpu" ? ` (${formatCount(s.cpuIterations)} iterations)` : ""}
      </dd>
      <dt>Load</dt>
      <dd>
        {workload.arrivalRate !== undefined
          ? `open model, ${formatCount(workload.arrivalRate)} req/s (max ${workload.maxVus ?? "auto"} VUs)`
          : `closed model, ${workload.vus} VUs`}
      </dd>
      <dt>Duration</dt>
      <dd>{workload.durationSeconds} s</dd>
      <dt>Request timeout</dt>
      <dd>{formatMs(workload.requestTimeoutMs)}</dd>
      <dt>Load generator</dt>
      <dd>{workload.loadgenCpus} CPU</dd>
    </dl>
  );
}

export function HostFacts({ host }: { host: THostFacts }) {
  return (
    <dl className="facts" data-testid="run-host">
      <dt>CPUs</dt>
      <dd>{host.cpus}</dd>
      <dt>Memory</dt>
      <dd>{formatBytes(host.memoryBytes)}</dd>
      <dt>Kernel</dt>
      <dd>{host.kernel}</dd>
      {host.os && (
        <>
          <dt>OS</dt>
          <dd>{host.os}</dd>
        </>
      )}
      <dt>Docker</dt>
      <dd>{host.dockerVersion}</dd>
      {host.k6Version && (
        <>
          <dt>k6</dt>
          <dd>{host.k6Version}</dd>
        </>
      )}
    </dl>
  );
}
