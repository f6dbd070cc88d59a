import type { TContainerStat } from "@scalelab/scenarios/messages";
import type { PlannedContainer } from "@scalelab/scenarios/plan";
import type { TContainerSeconds } from "~/server/runs/types";

export type ResourceKey = "cpuPct" | "throttledMs" | "memBytes" | "netRxBps" | "netTxBps";

export type ResourceRow = { t: number } & Record<string, number | null>;
export type ResourceSeries = { keys: string[]; rows: ResourceRow[] };

/**
 * One row per second with a column per container (under `name(container)`), holding `key`; null
 * where that second has no reading of the container (stopped, or Docker sent none): a gap, not 0.
 */
export function resourceSeries(
  seconds: readonly TContainerSeconds[],
  key: ResourceKey,
  opts: { name?: (container: string) => string; only?: (c: TContainerStat) => boolean } = {},
): ResourceSeries {
  const name = opts.name ?? ((c: string) => c);
  const keys = new Set<string>();
  // A container none of whose readings has the figure (rows recorded before it was) gets no line.
  for (const s of seconds)
    for (const c of s.containers) if (c[key] !== undefined && (!opts.only || opts.only(c))) keys.add(name(c.container));
  const sorted = [...keys].sort();
  const rows = seconds.map((s) => {
    const row: ResourceRow = { t: s.t };
    for (const k of sorted) row[k] = null;
    for (const c of s.containers) {
      const k = name(c.container);
      if (k in row) row[k] = c[key] ?? null;
    }
    return row;
  });
  return { keys: sorted, rows };
}

export type LimitLine = { value: number; label: string };

/**
 * The limits of the planned containers among `shown` (by full name) as reference lines: one per
 * distinct value, labelled with the roles that have it. CPU in % of one core, memory in bytes.
 */
export function limitLines(planned: readonly PlannedContainer[], shown: ReadonlySet<string>, kind: "cpu" | "memory"): LimitLine[] {
  const byValue = new Map<number, Set<string>>();
  for (const c of planned) {
    if (!shown.has(c.name)) continue;
    const value = kind === "cpu" ? (c.cpus === undefined ? undefined : c.cpus * 100) : c.memoryBytes;
    if (value === undefined) continue;
    const roles = byValue.get(value) ?? new Set<string>();
    roles.add(c.role);
    byValue.set(value, roles);
  }
  return [...byValue].sort(([a], [b]) => a - b).map(([value, roles]) => ({ value, label: `${[...roles].sort().join(", ")} limit` }));
}
