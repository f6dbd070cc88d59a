"use client";

import { isTerminal } from "@scalelab/scenarios/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useReducer, useState, useSyncExternalStore } from "react";
import { formatElapsed, formatMs, formatPct, formatRps, formatTimestamp } from "~/lib/format";
import { BALANCER_KEY, NO_ANSWER_KEY } from "@scalelab/scenarios/contract";
import type { ErrorKind } from "@scalelab/scenarios/contract";
import {
  backendSeries,
  imbalanceSeries,
  cpuByContainer,
  errorKindSeries,
  initialLive,
  latencySeries,
  liveReducer,
  liveLoadgenUse,
  throughputSeries,
} from "~/lib/live";
import { FindingList } from "./finding-list";
import { RunThresholds } from "./thresholds";
import { BaselineButton, RegressionCard } from "./regression";
import { historyHref } from "~/lib/history";
import { runDiagram } from "~/lib/plan";
import type { TRunSnapshot } from "~/server/runs/live";
import type { TRunView } from "~/server/runs/types";
import { CopyRunLink, DeleteRunButton, RerunButton } from "./run-actions";
import { useTRPC } from "~/trpc/client";
import { PALETTE, TimeChart, useNearViewport } from "./charts";
import { ContainerCharts } from "./container-charts";
import { RunExport } from "./experiment-export";
import { faultMarkers } from "./fault-markers";
import { FaultTable } from "./fault-table";
import { FigureCharts, hasPoolModel } from "./figure-charts";
import { HostChart } from "./host-chart";
import { StatusBadge, StepProgress, stepLabel } from "./status";
import { BackendsTable, BrokerSummary, HostFacts, PoolSummary, SetupFacts, SummaryTable } from "./summary";
import { ChecksTable, ScriptMetricsTable } from "./script-summary";
import { TopologyDiagram } from "./topology-diagram";
import { ScrollList } from "./scroll-region";

const noSubscription = () => () => {};

/**
 * False while the page hydrates what the server rendered (and on the server), true after: what
 * depends on the browser (its time zone) is rendered the server's way first, so both agree.
 */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/** When the run was created: in the browser's time zone once hydrated, in UTC in the server's HTML. */
function CreatedAt({ iso }: { iso: string }) {
  const hydrated = useHydrated();
  return <time dateTime={iso}>{hydrated ? formatTimestamp(iso) : `${formatTimestamp(iso, "UTC")} UTC`}</time>;
}

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

const LATENCY_SERIES = [
  { key: "p50", label: "p50", color: PALETTE[0]! },
  { key: "p90", label: "p90", color: PALETTE[2]! },
  { key: "p95", label: "p95", color: PALETTE[1]! },
  { key: "p99", label: "p99", color: PALETTE[4]! },
];

/** Replicas in the palette's colours but red and grey, which stand for the requests no replica answered. */
const REPLICA_COLORS = PALETTE.filter((c) => c !== "#c92a2a" && c !== "#495057");
const backendColor = (key: string, i: number) =>
  key === NO_ANSWER_KEY ? "#c92a2a" : key === BALANCER_KEY ? "#495057" : REPLICA_COLORS[i % REPLICA_COLORS.length]!;

const ERROR_KIND_SERIES: Record<ErrorKind, { label: string; color: string }> = {
  "502": { label: "502 bad gateway", color: "#c92a2a" },
  "503": { label: "503 unavailable", color: "#e8590c" },
  "504": { label: "504 gateway timeout", color: "#ae3ec9" },
  timeout: { label: "timeout", color: "#5f3dc4" },
  conn: { label: "connection error", color: "#495057" },
  other: { label: "other", color: "#0c8599" },
};

/** What the run's figures say about why it came out so (a saturated host, a throttled service, a full pool…), each with its evidence. */
function RunFindings({ findings }: { findings: TRunView["findings"] }) {
  if (findings.length === 0) return null;
  return (
    <section className="panel" data-testid="run-findings">
      <h2>
        Findings<span className="h2-hint"> — what the figures say about why the run came out so</span>
      </h2>
      <FindingList findings={findings} />
    </section>
  );
}

/**
 * A run's page. `initial`: the run's stored state as the server read it while rendering the page
 * (the live view's first event), so the page shows its figures at once; a run that has ended needs
 * nothing more, a live one subscribes, and the stream's own first event replaces this one (no
 * second missed or counted twice between the server's read and the subscription).
 */
export function RunPage({ id, initial }: { id: string; initial?: TRunSnapshot | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const stored = useQuery(trpc.runs.get.queryOptions({ id }, { initialData: initial?.run }));
  const [live, dispatch] = useReducer(liveReducer, initial, (ev) => (ev ? liveReducer(initialLive, ev) : initialLive));
  const ended = initial ? isTerminal(initial.run.status) : false;
  // A finished run's page comes without its container readings: read when their charts come near.
  const containersLater = initial?.containersLater === true;
  const [containersNear, containersBox] = useNearViewport();
  const laterContainers = useQuery({
    ...trpc.runs.containerSeconds.queryOptions({ id }),
    enabled: containersLater && containersNear,
    staleTime: Infinity,
  });

  const subscription = useSubscription(
    trpc.runs.live.subscriptionOptions(
      { id },
      {
        enabled: stored.isSuccess && !ended,
        onData: (ev) => {
          dispatch(ev);
          if (ev.type === "run") {
            queryClient.setQueryData(trpc.runs.get.queryKey({ id }), ev.run);
            void queryClient.invalidateQueries({ queryKey: trpc.runs.list.pathKey() });
          }
        },
      },
    ),
  );

  const cancel = useMutation(trpc.runs.cancel.mutationOptions());
  const router = useRouter();

  const run = live.run ?? stored.data;
  // The baseline mark and the check change after the run ended (marked, unmarked): from the query, which a mark refreshes.
  const checked = stored.data ?? run;
  const active = run ? !isTerminal(run.status) : false;
  const now = useNow(active);

  const throughput = useMemo(() => throughputSeries(live.samples), [live.samples]);
  const latency = useMemo(() => latencySeries(live.samples), [live.samples]);
  const backends = useMemo(() => backendSeries(live.samples), [live.samples]);
  const replicas = run?.topology.service.replicas ?? 1;
  const imbalance = useMemo(() => imbalanceSeries(live.samples, replicas), [live.samples, replicas]);
  const errorKinds = useMemo(() => errorKindSeries(live.samples), [live.samples]);
  const markers = useMemo(() => faultMarkers(run?.faults), [run?.faults]);
  const diagram = useMemo(
    () =>
      run
        ? runDiagram(
            { engine: run.engine, topology: run.topology, workload: run.workload, faults: run.faults, thresholds: run.thresholds },
            run.id,
            run.host,
          )
        : null,
    [run?.topology, run?.workload, run?.id, run?.engine, run?.host],
  );
  const containerSeconds = containersLater ? (laterContainers.data ?? []) : live.containers;
  const nodeCpu = useMemo(
    () => (active ? cpuByContainer(live.containers, "latest") : (live.cpuMedian ?? cpuByContainer(live.containers, "run"))),
    [live.containers, live.cpuMedian, active],
  );

  if (stored.isPending) return <div className="empty">Loading…</div>;
  if (stored.isError || !run) {
    return (
      <div className="panel empty" data-testid="run-missing">
        {stored.error?.data?.code === "NOT_FOUND" ? "This run does not exist." : `Could not load the run: ${stored.error?.message}`}{" "}
        <Link href="/runs">Back to runs</Link>
      </div>
    );
  }

  const last = live.samples[live.samples.length - 1];
  const summary = run.summary;
  const loadgen = summary?.loadgen ?? liveLoadgenUse(live.containers, run.workload.loadgenCpus);
  const title = run.name ?? `Run ${run.id.slice(0, 8)}`;

  return (
    <>
      <div className="page-head">
        <div>
          <h1 data-testid="run-name">
            {title} <StatusBadge status={run.status} />
          </h1>
          <div className="sub mono">
            {run.id} · created <CreatedAt iso={run.createdAt} />
            {run.experiment && (
              <>
                {" · "}
                <Link href={`/experiments/${run.experiment.id}`} data-testid="run-experiment">
                  repetition {run.experiment.repetition + 1}
                  {run.experiment.attempt > 1 ? " (retry)" : ""} of an experiment
                </Link>
              </>
            )}
            {run.name && !run.experiment && (
              <>
                {" · "}
                <Link href={historyHref("run", run.name)} data-testid="run-history">
                  history of its name
                </Link>
                {checked?.markedBaseline && (
                  <>
                    {" · "}
                    <strong data-testid="run-is-baseline">the baseline of its name</strong>
                  </>
                )}
              </>
            )}
          </div>
        </div>
        <div className="actions">
          {active && (
            <button
              className="btn btn-danger"
              data-testid="cancel-run"
              disabled={cancel.isPending || run.cancelRequested || cancel.isSuccess}
              onClick={() => cancel.mutate({ id })}
            >
              {cancel.isPending || cancel.isSuccess || run.cancelRequested ? "Cancelling…" : "Cancel run"}
            </button>
          )}
          {!run.experiment && (
            <BaselineButton
              kind="run"
              id={run.id}
              name={run.name}
              marked={checked?.markedBaseline ?? false}
              canMark={run.status === "succeeded" && !!run.name}
              why={run.name ? "Only a run that succeeded can be a baseline" : "Only a named run can be the baseline of its name"}
            />
          )}
          <RerunButton id={run.id} />
          <CopyRunLink id={run.id} />
          <DeleteRunButton id={run.id} name={title} live={active} onDeleted={() => router.push("/runs")} />
        </div>
      </div>
      <RunExport id={run.id} live={active} />

      <section className="panel">
        <div>
          <strong data-testid="run-step" data-step={run.step}>
            {stepLabel(run.step)}
          </strong>
          {run.stepDetail && (
            <span className="step-detail" data-testid="run-step-detail">
              {" "}
              — {run.stepDetail}
            </span>
          )}
          {subscription.status === "connecting" && active && <span className="muted"> · connecting…</span>}
        </div>
        <StepProgress step={run.step} status={run.status} />
        {run.error && (
          <div className="error-box" data-testid="run-error" style={{ marginTop: 10 }}>
            {run.error}
          </div>
        )}
        {cancel.error && (
          <div className="error-box" style={{ marginTop: 10 }}>
            {cancel.error.message}
          </div>
        )}
      </section>

      {loadgen?.saturated && (
        <div className="notice" data-testid="loadgen-saturated" style={{ marginBottom: 16 }}>
          The load generator was saturated (median {loadgen.medianCpuPct} % of its {loadgen.cpus} CPU limit): it may have limited this run,
          so the figures can understate what the service handles. Give it more CPU (workload.loadgenCpus) or fewer VUs.
        </div>
      )}

      {diagram && (
        <section className="panel">
          <h2>Topology</h2>
          <TopologyDiagram
            diagram={diagram}
            cpu={nodeCpu}
            cpuNote={
              Object.keys(nodeCpu).length === 0
                ? undefined
                : active
                  ? "CPU per container in the last second (% of one core)."
                  : "Median CPU per container over the run (% of one core)."
            }
          />
        </section>
      )}

      <div className="figures" style={{ marginBottom: 16 }}>
        <div className="figure">
          <div className="label">{summary ? "Requests/s" : "Requests/s (last second)"}</div>
          <div className="value" data-testid="figure-rps">
            {formatRps(summary ? summary.rps : last?.requests)}
          </div>
        </div>
        <div className="figure">
          <div className="label">{summary ? "Latency p95" : "p95 (last second)"}</div>
          <div className="value">{formatMs(summary ? summary.latencyMs.p95 : last?.latencyMs?.p95)}</div>
        </div>
        <div className="figure">
          <div className="label">Error rate</div>
          <div className="value">
            {formatPct(summary ? summary.errorRate : last ? (last.requests ? last.errors / last.requests : 0) : null)}
          </div>
        </div>
        <div className="figure">
          <div className="label">Seconds measured</div>
          <div className="value" data-testid="figure-seconds">
            {live.seconds}
          </div>
        </div>
        <div className="figure">
          <div className="label">Elapsed</div>
          {/* Counted from the server's clock in its HTML, from the browser's within a second after. */}
          <div className="value" suppressHydrationWarning>
            {formatElapsed(run.startedAt ?? run.createdAt, run.finishedAt, now)}
          </div>
        </div>
      </div>

      {summary?.thresholds && <RunThresholds outcome={summary.thresholds} />}
      {checked?.regression && <RegressionCard regression={checked.regression} kind="run" name={run.name ?? ""} ended={!active} />}
      <RunFindings findings={run.findings} />

      <div className="grid-2" style={{ marginBottom: 16 }}>
        <section className="panel">
          <h2>Throughput (req/s)</h2>
          <TimeChart
            testId="chart-rps"
            first
            data={throughput}
            unit="req/s"
            series={[{ key: "rps", label: "req/s", color: PALETTE[0]! }]}
            markers={markers}
          />
        </section>
        <section className="panel">
          <h2>Latency percentiles (ms, per second)</h2>
          <TimeChart testId="chart-latency" first data={latency} unit="ms" series={LATENCY_SERIES} markers={markers} peaks="max" />
        </section>
        <section className="panel">
          <h2>Errors per second</h2>
          <TimeChart
            testId="chart-errors"
            data={throughput}
            unit="errors/s"
            series={[{ key: "errors", label: "errors/s", color: PALETTE[4]! }]}
            markers={markers}
          />
        </section>
        <FigureCharts topology={run.topology} figures={live.figures} active={active} markers={markers} />
      </div>

      <div ref={containersBox}>
        <ContainerCharts
          run={run}
          seconds={containerSeconds}
          active={active}
          markers={markers}
          reading={
            !containersLater || laterContainers.isSuccess
              ? undefined
              : laterContainers.isError
                ? `Could not read the containers' statistics: ${laterContainers.error.message}`
                : "Reading the containers' statistics…"
          }
        />
      </div>

      <HostChart runId={run.id} active={active} hostNoise={summary?.hostNoise} nodeNoise={summary?.nodes} markers={markers} />

      {backends.keys.length > 0 && (
        <section className="panel">
          <h2>Requests per backend (per second)</h2>
          <TimeChart
            testId="chart-backends"
            data={backends.rows}
            unit="req/s"
            stacked
            series={backends.keys.map((k, i) => ({ key: k, label: k, color: backendColor(k, i) }))}
            markers={markers}
          />
          {run.topology.service.replicas > 1 && (
            <>
              <h2 style={{ marginTop: 16 }}>
                Imbalance
                <span className="h2-hint">
                  {" "}
                  — max/mean of the replicas' answers each second: 1 = even, {run.topology.service.replicas} = all on one
                </span>
              </h2>
              <TimeChart
                testId="chart-imbalance"
                data={imbalance}
                unit="×"
                height={140}
                series={[{ key: "imbalance", label: "max/mean", color: PALETTE[3]! }]}
                markers={markers}
              />
            </>
          )}
        </section>
      )}

      {errorKinds.keys.length > 0 && (
        <section className="panel">
          <h2>
            Errors by kind (per second)
            <span className="h2-hint"> — {errorKinds.keys.map((k) => ERROR_KIND_SERIES[k].label).join(", ")}</span>
          </h2>
          <TimeChart
            testId="chart-error-kinds"
            data={errorKinds.rows}
            unit="errors/s"
            stacked
            series={errorKinds.keys.map((k) => ({ key: k, ...ERROR_KIND_SERIES[k] }))}
            markers={markers}
          />
        </section>
      )}

      {run.faults.length > 0 && (
        <section className="panel">
          <h2>
            Faults<span className="h2-hint"> — each at its planned and actual second, and what it did to the load</span>
          </h2>
          <FaultTable faults={run.faults} effects={summary?.faults} active={active} />
        </section>
      )}

      <div className="grid-2">
        <section className="panel">
          <h2>Summary</h2>
          {summary ? (
            <>
              <SummaryTable summary={summary} />
              {summary.pool && hasPoolModel(run.topology) && (
                <div style={{ marginTop: 16 }}>
                  <h3>Worker pool</h3>
                  <PoolSummary summary={summary} pool={summary.pool} />
                </div>
              )}
              {summary.broker && (
                <div style={{ marginTop: 16 }}>
                  <h3>Broker</h3>
                  <BrokerSummary summary={summary} broker={summary.broker} />
                </div>
              )}
              {summary.script && (
                <>
                  <div style={{ marginTop: 16 }}>
                    <h3>Checks</h3>
                    <ChecksTable checks={summary.script.checks} />
                  </div>
                  <div style={{ marginTop: 16 }}>
                    <h3>Script metrics</h3>
                    <ScriptMetricsTable metrics={summary.script.metrics} />
                  </div>
                </>
              )}
              {summary.backends && Object.keys(summary.backends).length > 0 && (
                <div style={{ marginTop: 16 }}>
                  <h3>Per backend</h3>
                  <BackendsTable backends={summary.backends} />
                </div>
              )}
            </>
          ) : (
            <div className="muted">{active ? "The whole-run figures appear when the load has finished." : "This run has no summary."}</div>
          )}
        </section>
        <div className="stack">
          <section className="panel" style={{ marginBottom: 0 }}>
            <h2>Setup</h2>
            <SetupFacts topology={run.topology} workload={run.workload} faults={run.faults} script={summary?.script} />
          </section>
          <section className="panel" style={{ marginBottom: 0 }}>
            <h2>Host</h2>
            {run.host ? <HostFacts host={run.host} /> : <div className="muted">Recorded when the worker starts the run.</div>}
          </section>
        </div>
      </div>

      {live.log.length > 0 && (
        <section className="panel" style={{ marginTop: 16 }}>
          <h2>Events</h2>
          <ScrollList className="log" label="Events" data-testid="run-log">
            {live.log.map((l) => (
              <li key={l.id} className={`lvl-${l.level}`}>
                [{l.step}] {l.message}
              </li>
            ))}
          </ScrollList>
        </section>
      )}
    </>
  );
}
