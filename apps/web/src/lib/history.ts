import type { THistory } from "~/server/baselines/types";

/** What the history page draws: one row per run or experiment (x = its place, oldest first), one series per variant. */
export type HistoryRow = { x: number; id: string; createdAt: string; verdict: string | null } & Record<string, number | string | null>;
export type HistoryChart = { rows: HistoryRow[]; series: { key: string; label: string }[]; baselineX: number | null };

/**
 * A metric's chart of a name's history: for runs one series (the run's figure), for experiments
 * one per variant (its mean), variants named alike across experiments joined into one line; the
 * baseline's place for its marker.
 */
export function historyChart(h: Pick<THistory, "kind" | "points">, metric: "rps" | "p95"): HistoryChart {
  const names: string[] = [];
  if (h.kind === "experiment")
    for (const p of h.points) for (const v of p.variants ?? []) if (!names.includes(v.variant)) names.push(v.variant);
  const series =
    h.kind === "run" ? [{ key: "s0", label: metric === "rps" ? "req/s" : "p95 (ms)" }] : names.map((n, i) => ({ key: `s${i}`, label: n }));
  const rows = h.points.map((p, i) => {
    const row: HistoryRow = { x: i + 1, id: p.id, createdAt: p.createdAt, verdict: p.verdict };
    if (h.kind === "run") row.s0 = p[metric];
    else names.forEach((n, j) => (row[`s${j}`] = p.variants?.find((v) => v.variant === n)?.[metric] ?? null));
    return row;
  });
  const at = h.points.findIndex((p) => p.baseline);
  return { rows, series, baselineX: at < 0 ? null : at + 1 };
}

/** The verdict of a regression check in words a newcomer understands, short enough for a table cell. */
export const VERDICT_LABEL: Record<"passed" | "regressed" | "cannot_tell", string> = {
  passed: "no regression",
  regressed: "regression",
  cannot_tell: "cannot tell",
};

/** The history page of a name. */
export const historyHref = (kind: "run" | "experiment", name: string) => `/history?name=${encodeURIComponent(name)}&kind=${kind}`;
