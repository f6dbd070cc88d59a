"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { aboutDuration } from "~/lib/experiment-format";
import { formatTimestamp } from "~/lib/format";
import { useTRPC } from "~/trpc/client";
import { ExperimentStatusBadge, isLive } from "./experiment-status";
import { ScrollBox } from "./scroll-region";

export function ExperimentList() {
  const trpc = useTRPC();
  const experiments = useInfiniteQuery(
    trpc.experiments.list.infiniteQueryOptions(
      { limit: 50 },
      {
        getNextPageParam: (page) => page.nextCursor ?? undefined,
        refetchInterval: (q) => (q.state.data?.pages[0]?.items.some((e) => isLive(e.status)) ? 2_000 : 15_000),
      },
    ),
  );
  const items = experiments.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Experiments</h1>
          <div className="sub">Variants of a run definition, each run several times (interleaved) and compared with the baseline.</div>
        </div>
        <div className="actions">
          <Link className="btn" href="/presets" data-testid="presets-link">
            Presets
          </Link>
          <Link className="btn btn-primary" href="/experiments/new" data-testid="new-experiment">
            New experiment
          </Link>
        </div>
      </div>

      <ScrollBox label="Experiments" className="panel" style={{ padding: 0 }}>
        {experiments.isPending ? (
          <div className="empty">Loading…</div>
        ) : experiments.isError ? (
          <div className="empty error-box">Could not load experiments: {experiments.error.message}</div>
        ) : items.length === 0 ? (
          <div className="empty">
            No experiments yet. <Link href="/experiments/new">Start the first one</Link>, or run one of the{" "}
            <Link href="/presets">presets</Link>.
          </div>
        ) : (
          <table className="data" data-testid="experiments-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th>Progress</th>
                <th className="num">Variants × repetitions</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => {
                const p = e.progress;
                return (
                  <tr key={e.id} data-testid="experiment-row" data-experiment-id={e.id} data-experiment-name={e.name}>
                    <td className="name">
                      <Link href={`/experiments/${e.id}`}>{e.name}</Link>
                      {e.preset && <span className="muted"> · {e.preset}</span>}
                    </td>
                    <td>
                      <ExperimentStatusBadge status={e.status} />
                    </td>
                    <td>
                      <span className="progress-cell">
                        <span className="progress-bar" aria-hidden>
                          <span style={{ width: `${p.total > 0 ? (100 * p.finished) / p.total : 0}%` }} />
                        </span>
                        {p.finished}/{p.total} runs
                      </span>
                      {isLive(e.status) && <span className="muted"> · {aboutDuration(p.secondsLeft)} left</span>}
                      {p.failed > 0 && <span className="muted"> · {p.failed} failed</span>}
                    </td>
                    <td className="num">
                      {e.variants} × {e.repetitions}
                    </td>
                    <td className="muted">{formatTimestamp(e.createdAt)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </ScrollBox>
      {experiments.hasNextPage && (
        <div className="runs-more">
          <button
            className="btn"
            data-testid="load-older-experiments"
            disabled={experiments.isFetchingNextPage}
            onClick={() => void experiments.fetchNextPage()}
          >
            {experiments.isFetchingNextPage ? "Loading…" : "Load older"}
          </button>
        </div>
      )}
    </>
  );
}
