"use client";

import { isTerminal } from "@scalelab/scenarios/contract";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { firstRunSentence } from "~/lib/first-run";
import { formatDuration, formatRps, formatTimestamp } from "~/lib/format";
import { useTRPC } from "~/trpc/client";
import { ExperimentStatusBadge, isLive } from "./experiment-status";
import { StatusBadge } from "./status";

/** How many of the latest runs and experiments the home page shows. */
const LATEST = 5;

/** `/`: what the lab answers, a first run in two clicks, the presets, the latest runs and experiments. */
export function Home() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>What does scaling do to your service?</h1>
          <div className="sub home-intro">
            Scalelab builds a topology of real containers on this machine (replicas behind a balancer, with a store, a broker or a cache
            beside them), loads it with k6 or wrk and records every second of it. It answers questions such as: does a second replica double
            the throughput? What does blocking logging cost? Where does a pool saturate? Runs repeated as experiments are compared with a
            verdict, and the findings say why.
          </div>
        </div>
      </div>

      <section className="panel first-run" data-testid="first-run">
        <div>
          <h2>Your first run</h2>
          <p className="muted">{firstRunSentence()} The form opens filled in: press Start run.</p>
        </div>
        <div className="actions">
          <Link className="btn btn-primary" href="/runs/new?first=1" data-testid="start-first-run">
            Start a first run
          </Link>
          <Link className="btn" href="/runs/new?kind=image">
            Run your own image
          </Link>
        </div>
      </section>

      <div className="grid-2 home-latest">
        <LatestRuns />
        <LatestExperiments />
      </div>

      <Presets />
    </>
  );
}

function LatestRuns() {
  const trpc = useTRPC();
  const runs = useQuery({
    ...trpc.runs.list.queryOptions({ limit: LATEST, experiment: "none" }),
    refetchInterval: (q) => (q.state.data?.items.some((r) => !isTerminal(r.status)) ? 2_000 : 15_000),
  });
  return (
    <section className="panel" data-testid="home-runs">
      <div className="panel-head">
        <h2>Latest runs</h2>
        <Link href="/runs">All runs</Link>
      </div>
      {runs.isPending ? (
        <div className="muted">Loading…</div>
      ) : runs.isError ? (
        <div className="error-box">Could not load the runs: {runs.error.message}</div>
      ) : runs.data.items.length === 0 ? (
        <div className="muted">No runs yet: start the first one above.</div>
      ) : (
        <ul className="home-list">
          {runs.data.items.map((r) => (
            <li key={r.id} data-testid="home-run" data-run-id={r.id}>
              <Link href={`/runs/${r.id}`}>{r.name ?? r.id.slice(0, 8)}</Link>
              <StatusBadge status={r.status} />
              <span className="muted">
                {r.summary ? `${formatRps(r.summary.rps)} req/s · ` : ""}
                {formatTimestamp(r.createdAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function LatestExperiments() {
  const trpc = useTRPC();
  const experiments = useQuery({
    ...trpc.experiments.list.queryOptions({ limit: LATEST }),
    refetchInterval: (q) => (q.state.data?.items.some((e) => isLive(e.status)) ? 2_000 : 15_000),
  });
  return (
    <section className="panel" data-testid="home-experiments">
      <div className="panel-head">
        <h2>Latest experiments</h2>
        <Link href="/experiments">All experiments</Link>
      </div>
      {experiments.isPending ? (
        <div className="muted">Loading…</div>
      ) : experiments.isError ? (
        <div className="error-box">Could not load the experiments: {experiments.error.message}</div>
      ) : experiments.data.items.length === 0 ? (
        <div className="muted">No experiments yet: a preset below runs one.</div>
      ) : (
        <ul className="home-list">
          {experiments.data.items.map((e) => (
            <li key={e.id} data-testid="home-experiment" data-experiment-id={e.id}>
              <Link href={`/experiments/${e.id}`}>{e.name}</Link>
              <ExperimentStatusBadge status={e.status} />
              <span className="muted">
                {e.progress.finished}/{e.progress.total} runs · {formatTimestamp(e.createdAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Presets() {
  const trpc = useTRPC();
  const presets = useQuery(trpc.presets.list.queryOptions({}));
  return (
    <section className="panel" data-testid="home-presets">
      <div className="panel-head">
        <h2>
          Presets<span className="h2-hint"> — the write-ups&apos; experiments, ready to run on this machine</span>
        </h2>
        <Link href="/presets">All presets</Link>
      </div>
      {presets.isPending ? (
        <div className="muted">Loading…</div>
      ) : presets.isError ? (
        <div className="error-box">Could not load the presets: {presets.error.message}</div>
      ) : (
        <ul className="home-presets">
          {presets.data.map((p) => (
            <li key={p.name} data-testid="home-preset" data-preset={p.name}>
              <Link href={`/presets#${p.name}`}>{p.title}</Link>
              <div className="muted">{p.shows}</div>
              <div className="home-preset-cost">
                {p.runs} runs, about {formatDuration(p.estimatedSeconds)}
                {p.engine && (
                  <>
                    {" "}
                    · needs engine {p.engine.name} with {p.engine.nodes} nodes: <code>{p.engine.setup}</code>
                  </>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
