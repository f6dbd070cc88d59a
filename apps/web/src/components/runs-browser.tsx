"use client";

import { balancerLabel, isTerminal, LOADGENS, RUN_STATUSES, type TRunStatus } from "@scalelab/scenarios/contract";
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useState } from "react";
import { formatMs, formatPct, formatRps, formatTimestamp, loadLabel } from "~/lib/format";
import { mergeTimeline } from "~/lib/runs-timeline";
import { useDebounced } from "~/lib/use-debounced";
import type { TExperimentSummary } from "~/server/experiments/types";
import { MAX_COMPARED } from "~/server/runs/compare-types";
import type { TOrder } from "~/server/runs/paging";
import type { TRunView } from "~/server/runs/types";
import { useTRPC } from "~/trpc/client";
import { ExperimentStatusBadge, isLive } from "./experiment-status";
import { CopyRunLink, DeleteExperimentButton, DeleteRunButton, RerunButton } from "./run-actions";
import { StatusBadge, stepLabel } from "./status";

const PAGE = 100;
const SEARCH_DEBOUNCE_MS = 300;

/**
 * Every run, newest first (or oldest first), a page at a time to the other end: a name search,
 * status and load generator filters, and an experiment's runs as one row per experiment unless "all runs" is on
 * (a status or load generator filter lists the runs themselves).
 */
export function RunsBrowser() {
  const trpc = useTRPC();
  const router = useRouter();
  const [search, setSearch] = useState("");
  const [statuses, setStatuses] = useState<TRunStatus[]>([]);
  const [loadgen, setLoadgen] = useState<"" | (typeof LOADGENS)[number]>("");
  const [allRuns, setAllRuns] = useState(false);
  const [to, setTo] = useState("");
  const [order, setOrder] = useState<TOrder>("newest");
  const [selected, setSelected] = useState<string[]>([]);
  const q = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  const flat = allRuns || statuses.length > 0 || loadgen !== "";

  const runsInput = {
    limit: PAGE,
    order,
    ...(q && { q }),
    ...(statuses.length > 0 && { status: statuses }),
    ...(loadgen && { loadgen }),
    ...(to && { to }),
    ...(!flat && { experiment: "none" }),
  };
  const runs = useInfiniteQuery(
    trpc.runs.list.infiniteQueryOptions(runsInput, {
      getNextPageParam: (page) => page.nextCursor ?? undefined,
      // Live runs (the newest) move on their own: on the first page newest first, on the last loaded
      // page oldest first; the other pages are finished runs.
      refetchInterval: (query) => (newestPage(query.state.data?.pages, order)?.items.some((r) => !isTerminal(r.status)) ? 3_000 : false),
    }),
  );
  const experiments = useInfiniteQuery({
    ...trpc.experiments.list.infiniteQueryOptions(
      { limit: PAGE, order, ...(q && { q }) },
      {
        getNextPageParam: (page) => page.nextCursor ?? undefined,
        refetchInterval: (query) => (newestPage(query.state.data?.pages, order)?.items.some((e) => isLive(e.status)) ? 3_000 : false),
      },
    ),
    enabled: !flat,
  });

  const runItems = useMemo(() => runs.data?.pages.flatMap((p) => p.items) ?? [], [runs.data]);
  const experimentItems = useMemo(() => experiments.data?.pages.flatMap((p) => p.items) ?? [], [experiments.data]);
  const timeline = useMemo(() => {
    if (flat) {
      return { rows: runItems.map((item) => ({ kind: "run" as const, item })), next: runs.hasNextPage ? ("runs" as const) : null };
    }
    return mergeTimeline(
      { items: runItems, hasMore: runs.isPending || runs.hasNextPage },
      { items: experimentItems, hasMore: experiments.isPending || experiments.hasNextPage },
      order,
    );
  }, [flat, runItems, experimentItems, runs.isPending, runs.hasNextPage, experiments.isPending, experiments.hasNextPage, order]);

  const fetching = runs.isFetchingNextPage || experiments.isFetchingNextPage;
  const loadMore = useCallback(() => {
    if (fetching) return;
    if (timeline.next === "runs") void runs.fetchNextPage();
    else if (timeline.next === "experiments") void experiments.fetchNextPage();
  }, [fetching, timeline.next, runs, experiments]);

  // One page of rows on screen at a time, however many are loaded: the page stays as fast at the
  // 10,000th run as at the first. A page not yet full loads what it needs.
  const [pageIndex, setPageIndex] = useState(0);
  const filterKey = JSON.stringify([q, statuses, loadgen, flat, to, order]);
  useEffect(() => setPageIndex(0), [filterKey]);
  const shown = timeline.rows.slice(pageIndex * PAGE, (pageIndex + 1) * PAGE);
  const windowFull = timeline.rows.length > (pageIndex + 1) * PAGE;
  useEffect(() => {
    if (!windowFull && timeline.next && !fetching && !runs.isPending) loadMore();
  }, [windowFull, timeline.next, fetching, runs.isPending, loadMore]);
  const hasOlder = windowFull || timeline.next !== null;

  const toggleStatus = (s: TRunStatus) => setStatuses((list) => (list.includes(s) ? list.filter((x) => x !== s) : [...list, s]));
  const toggle = (id: string) =>
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : s.length < MAX_COMPARED ? [...s, id] : s));
  const selectionFull = selected.length >= MAX_COMPARED;
  const [nearer, further] = order === "newest" ? ["Newer", "Older"] : ["Older", "Newer"];
  const error = runs.error ?? experiments.error;
  const pending = runs.isPending || (!flat && experiments.isPending);
  const filtered = q !== "" || statuses.length > 0 || loadgen !== "" || to !== "";

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Runs</h1>
          <div className="sub">
            Every run, {order === "newest" ? "newest" : "oldest"} first. Select 2 to {MAX_COMPARED} finished runs to compare them side by
            side.
          </div>
        </div>
        <div className="actions">
          <button
            className="btn"
            data-testid="compare-selected"
            disabled={selected.length < 2}
            onClick={() => router.push(`/compare?ids=${selected.join(",")}`)}
          >
            Compare{selected.length > 0 ? ` (${selected.length})` : ""}
          </button>
          <Link className="btn btn-primary" href="/runs/new" data-testid="new-run">
            New run
          </Link>
        </div>
      </div>

      <section className="panel runs-filters" aria-label="Filters">
        <label className="field">
          <span>Search</span>
          <input
            type="search"
            data-testid="runs-search"
            placeholder="Name or id"
            maxLength={200}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
        <fieldset className="runs-status-filter">
          <legend>Status</legend>
          {RUN_STATUSES.map((s) => (
            <label key={s} className="check">
              <input type="checkbox" data-testid={`status-filter-${s}`} checked={statuses.includes(s)} onChange={() => toggleStatus(s)} />
              {s}
            </label>
          ))}
        </fieldset>
        <label className="field">
          <span>Load generator</span>
          <select data-testid="loadgen-filter" value={loadgen} onChange={(e) => setLoadgen(e.target.value as typeof loadgen)}>
            <option value="">any</option>
            {LOADGENS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Created on or before</span>
          <input type="date" data-testid="created-before" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
        <label className="field">
          <span>Order</span>
          <select data-testid="runs-order" value={order} onChange={(e) => setOrder(e.target.value as TOrder)}>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </select>
        </label>
        <label className="check">
          <input type="checkbox" data-testid="show-all-runs" checked={allRuns} onChange={(e) => setAllRuns(e.target.checked)} />
          Show experiments&apos; runs one by one
        </label>
        {!allRuns && (statuses.length > 0 || loadgen !== "") && (
          <div className="muted">A status or load generator filter lists the runs themselves, experiments&apos; runs included.</div>
        )}
      </section>

      <div className="panel table-panel" style={{ padding: 0 }} tabIndex={0} role="region" aria-label="Runs">
        {pending ? (
          <div className="empty">Loading…</div>
        ) : error ? (
          <div className="empty error-box">Could not load runs: {error.message}</div>
        ) : shown.length === 0 && !timeline.next ? (
          <div className="empty" data-testid="runs-empty">
            {filtered ? (
              "No run matches."
            ) : (
              <>
                No runs yet. <Link href="/runs/new">Start the first one.</Link>
              </>
            )}
          </div>
        ) : (
          <table className="data" data-testid="runs-table">
            <thead>
              <tr>
                <th style={{ width: 36 }} aria-label="Select" />
                <th>Name</th>
                <th>Status</th>
                <th>Setup</th>
                <th className="num">Req/s</th>
                <th className="num">p95</th>
                <th className="num">Error rate</th>
                <th>Created</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {shown.map((row) =>
                row.kind === "run" ? (
                  <RunRow
                    key={`r-${row.item.id}`}
                    run={row.item}
                    selected={selected.includes(row.item.id)}
                    full={selectionFull}
                    onToggle={toggle}
                  />
                ) : (
                  <ExperimentRow key={`e-${row.item.id}`} experiment={row.item} />
                ),
              )}
            </tbody>
          </table>
        )}
      </div>
      {!pending && shown.length > 0 && (
        <nav className="runs-more" aria-label="Pages" data-testid="runs-pages">
          <button
            className="btn"
            data-testid="load-newer"
            disabled={pageIndex === 0}
            onClick={() => setPageIndex((i) => Math.max(0, i - 1))}
          >
            {nearer}
          </button>
          <span className="muted" data-testid="runs-range">
            {pageIndex * PAGE + 1}–{pageIndex * PAGE + shown.length}
            {!hasOlder && <span data-testid="runs-end">: the {order === "newest" ? "oldest" : "newest"}</span>}
          </span>
          <button
            className="btn"
            data-testid="load-older"
            disabled={!hasOlder || (!windowFull && fetching)}
            onClick={() => setPageIndex((i) => i + 1)}
          >
            {!windowFull && fetching ? "Loading…" : further}
          </button>
        </nav>
      )}
    </>
  );
}

/** The page holding the newest items loaded: the first newest first, the last loaded oldest first. */
function newestPage<P>(pages: P[] | undefined, order: TOrder): P | undefined {
  return order === "newest" ? pages?.[0] : pages?.at(-1);
}

function RunRow({
  run: r,
  selected,
  full,
  onToggle,
}: {
  run: TRunView;
  selected: boolean;
  /** As many runs ticked as compare takes: only a ticked one can change. */
  full: boolean;
  onToggle: (id: string) => void;
}) {
  const s = r.topology.service;
  const name = r.name ?? r.id.slice(0, 8);
  return (
    <tr data-testid="run-row" data-run-id={r.id} data-run-name={r.name ?? ""}>
      <td>
        <input
          type="checkbox"
          aria-label={`Select ${name}`}
          data-testid="run-select"
          checked={selected}
          disabled={full && !selected}
          title={full && !selected ? `Compare takes at most ${MAX_COMPARED} runs: untick one to pick this one` : undefined}
          onChange={() => onToggle(r.id)}
        />
      </td>
      <td className="name">
        <Link href={`/runs/${r.id}`}>{name}</Link>
        {r.experiment && (
          <>
            {" "}
            <Link className="muted" href={`/experiments/${r.experiment.id}`}>
              (experiment)
            </Link>
          </>
        )}
      </td>
      <td title={r.error ?? undefined}>
        <StatusBadge status={r.status} />
        {!isTerminal(r.status) && <span className="muted"> {stepLabel(r.step)}</span>}
      </td>
      <td className="muted setup">
        {s.replicas}× {s.cpus === undefined ? "unlimited" : `${s.cpus} CPU`} · {balancerLabel(r.topology.balancer)} ·{" "}
        {loadLabel(r.workload)}
      </td>
      <td className="num">{formatRps(r.summary?.rps)}</td>
      <td className="num">{formatMs(r.summary?.latencyMs.p95)}</td>
      <td className="num">{formatPct(r.summary?.errorRate)}</td>
      <td className="muted">{formatTimestamp(r.createdAt)}</td>
      <td>
        <div className="row-actions">
          <RerunButton id={r.id} small />
          <CopyRunLink id={r.id} small />
          <DeleteRunButton id={r.id} name={name} live={!isTerminal(r.status)} small />
        </div>
      </td>
    </tr>
  );
}

function ExperimentRow({ experiment: e }: { experiment: TExperimentSummary }) {
  const p = e.progress;
  return (
    <tr data-testid="experiment-row" data-experiment-id={e.id} data-experiment-name={e.name}>
      <td />
      <td className="name">
        <Link href={`/experiments/${e.id}`}>{e.name}</Link>
        <span className="muted">
          {" "}
          · experiment, {p.total} run{p.total === 1 ? "" : "s"}
        </span>
      </td>
      <td>
        <ExperimentStatusBadge status={e.status} />
      </td>
      <td className="muted setup">
        {e.variants} variant{e.variants === 1 ? "" : "s"} × {e.repetitions} · {p.finished}/{p.total} finished
        {p.failed > 0 ? ` · ${p.failed} failed` : ""}
      </td>
      <td className="num" />
      <td className="num" />
      <td className="num" />
      <td className="muted">{formatTimestamp(e.createdAt)}</td>
      <td>
        <div className="row-actions">
          <DeleteExperimentButton id={e.id} name={e.name} runs={p.total} small />
        </div>
      </td>
    </tr>
  );
}
