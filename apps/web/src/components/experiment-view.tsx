"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { shortField } from "~/lib/experiment-charts";
import { aboutDuration, formatCoefficient, progressLine, troubleLine } from "~/lib/experiment-format";
import { formatRps, formatTimestamp } from "~/lib/format";
import type { TExperimentView } from "~/server/experiments/types";
import { useTRPC } from "~/trpc/client";
import { ExperimentBars, UslChart } from "./experiment-charts";
import { ExperimentExport } from "./experiment-export";
import { ExperimentStatusBadge, isLive } from "./experiment-status";
import { Comparisons, Findings, HeatTables, Reference, VariantStats } from "./experiment-tables";
import { DeleteExperimentButton } from "./run-actions";
import { ExperimentThresholds } from "./thresholds";
import { BaselineButton, RegressionCard } from "./regression";
import { historyHref } from "~/lib/history";
import { CodeBlock } from "./scroll-region";

function Progress({ view }: { view: TExperimentView }) {
  const p = view.progress;
  const trouble = troubleLine(p);
  const done = p.total > 0 ? p.finished / p.total : 0;
  return (
    <section className="panel" data-testid="experiment-progress" data-finished={p.finished} data-total={p.total}>
      <div className="progress-line">
        <strong>{progressLine(view.status, p)}</strong>
        {trouble && (
          <span className={p.failed > 0 || p.missing > 0 ? "bad-text" : "muted"} data-testid="experiment-trouble">
            {trouble}
          </span>
        )}
        {view.cancelRequested && isLive(view.status) && <span className="muted">cancelling…</span>}
      </div>
      <div className="progress-bar wide" aria-hidden>
        <span style={{ width: `${Math.round(done * 100)}%` }} />
      </div>
      <div className="muted" style={{ fontSize: 12.5 }}>
        {view.variants.length} variant{view.variants.length === 1 ? "" : "s"} × {view.repetitions} repetition
        {view.repetitions === 1 ? "" : "s"} = {p.planned} planned runs, interleaved, {view.settleSeconds} s settle pause · estimated{" "}
        {aboutDuration(view.estimatedSeconds)} when created
      </div>
    </section>
  );
}

function Usl({ view }: { view: TExperimentView }) {
  if (!view.usl && !view.uslNote) return null;
  const usl = view.usl;
  return (
    <section className="panel" data-testid="usl-chart" data-fitted={usl ? "yes" : "no"}>
      <h2>
        Universal Scalability Law
        {usl && <span className="h2-hint"> — throughput over {shortField(usl.field)}: X(N) = λN / (1 + σ(N − 1) + κN(N − 1))</span>}
      </h2>
      {usl ? (
        <>
          <UslChart usl={usl} />
          <dl className="facts usl-facts" data-testid="usl-figures">
            <dt>σ (contention)</dt>
            <dd data-testid="usl-sigma">{formatCoefficient(usl.sigma)}</dd>
            <dt>κ (coherency)</dt>
            <dd data-testid="usl-kappa">{formatCoefficient(usl.kappa)}</dd>
            <dt>λ (req/s of one)</dt>
            <dd data-testid="usl-lambda">{formatRps(usl.lambda)}</dd>
            <dt>N* (peak)</dt>
            <dd data-testid="usl-peak">
              {usl.peakN === null ? (
                <>
                  none: throughput does not turn down
                  {usl.ceilingX !== null && <span className="muted"> (it levels off towards λ/σ ≈ {formatRps(usl.ceilingX)} req/s)</span>}
                </>
              ) : (
                <>
                  {formatCoefficient(usl.peakN)} {shortField(usl.field)}
                  {usl.peakX !== null && <span className="muted"> at about {formatRps(usl.peakX)} req/s</span>}
                </>
              )}
            </dd>
            <dt>R²</dt>
            <dd data-testid="usl-r2">{usl.r2 === null ? "—" : usl.r2.toFixed(3)}</dd>
          </dl>
          {view.uslNote && (
            <p className="muted" data-testid="usl-note">
              Caveat: {view.uslNote}.
            </p>
          )}
        </>
      ) : (
        <div className="muted" data-testid="usl-note">
          No USL fit: {view.uslNote}.
        </div>
      )}
    </section>
  );
}

export function ExperimentView({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const experiment = useQuery({
    ...trpc.experiments.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data && isLive(q.state.data.status) ? 2_000 : false),
  });
  const cancel = useMutation(
    trpc.experiments.cancel.mutationOptions({
      onSettled: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.experiments.get.queryKey({ id }) });
        void queryClient.invalidateQueries({ queryKey: trpc.experiments.list.pathKey() });
      },
    }),
  );

  if (experiment.isPending) return <div className="empty">Loading…</div>;
  // A failed refetch keeps the last data: the page stays, with a notice below.
  if (!experiment.data) {
    return (
      <div className="panel empty" data-testid="experiment-missing">
        {experiment.error?.data?.code === "NOT_FOUND"
          ? "This experiment does not exist."
          : `Could not load the experiment: ${experiment.error?.message}`}{" "}
        <Link href="/experiments">Back to experiments</Link>
      </div>
    );
  }

  const view = experiment.data;
  const live = isLive(view.status);
  const cancelling = cancel.isPending || cancel.isSuccess || view.cancelRequested;

  return (
    <>
      <div className="page-head">
        <div>
          <h1 data-testid="experiment-name">
            {view.name} <ExperimentStatusBadge status={view.status} />
          </h1>
          <div className="sub">
            <span className="mono">{view.id}</span> · created {formatTimestamp(view.createdAt)}
            {view.preset && <> · preset {view.preset}</>}
            {view.baseline && (
              <>
                {" "}
                · baseline <strong>{view.baseline}</strong>
              </>
            )}
            {" · "}
            <Link href={historyHref("experiment", view.name)} data-testid="experiment-history">
              history of its name
            </Link>
            {view.markedBaseline && (
              <>
                {" · "}
                <strong data-testid="experiment-is-baseline">the baseline of its name</strong>
              </>
            )}
          </div>
        </div>
        <div className="actions">
          {live && (
            <button className="btn btn-danger" data-testid="cancel-experiment" disabled={cancelling} onClick={() => cancel.mutate({ id })}>
              {cancelling ? "Cancelling…" : "Cancel"}
            </button>
          )}
          <BaselineButton
            kind="experiment"
            id={view.id}
            name={view.name}
            marked={view.markedBaseline}
            canMark={view.status === "succeeded"}
            why="Only an experiment whose runs all succeeded can be a baseline"
          />
          <DeleteExperimentButton id={view.id} name={view.name} runs={view.progress.total} onDeleted={() => router.push("/runs")} />
          <Link className="btn" href={`/experiments/new?from=${encodeURIComponent(view.id)}`} data-testid="copy-experiment">
            Copy and change
          </Link>
        </div>
      </div>
      <ExperimentExport id={view.id} live={live} />

      {cancel.error && (
        <div className="error-box" style={{ marginBottom: 16 }}>
          Could not cancel: {cancel.error.message}
        </div>
      )}
      {experiment.isRefetchError && (
        <div className="notice" style={{ marginBottom: 16 }}>
          Lost touch with the server ({experiment.error?.message}); showing the last known state.
        </div>
      )}

      <ExperimentReport view={view} />
    </>
  );
}

/** Everything below the header: progress, per-variant statistics, comparisons, charts, the USL, findings and the definition. */
export function ExperimentReport({ view }: { view: TExperimentView }) {
  return (
    <>
      <Progress view={view} />
      <ExperimentThresholds outcome={view.thresholds} />
      {view.regression && <RegressionCard regression={view.regression} kind="experiment" name={view.name} ended={!isLive(view.status)} />}
      <Reference view={view} />
      <VariantStats view={view} />
      <Comparisons view={view} />
      <ExperimentBars view={view} />
      <HeatTables view={view} />
      <Usl view={view} />
      <Findings findings={view.findings} />

      <section className="panel">
        <details>
          <summary>Definition</summary>
          <CodeBlock label="Definition" style={{ marginTop: 10 }} data-testid="experiment-definition">
            {JSON.stringify(view.definition, null, 2)}
          </CodeBlock>
        </details>
      </section>
    </>
  );
}
