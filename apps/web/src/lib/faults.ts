import { SERVICE_ROLE } from "@scalelab/scenarios/components";
import {
  ERROR_KINDS,
  FAULT_PARAMS,
  faultLabel,
  UNDO,
  type FaultAction,
  type FaultableRole,
  type TErrorCounts,
  type TFault,
  type TFaultEffect,
  type TFaultInput,
  type TFaultRecord,
} from "@scalelab/scenarios/contract";

/** A vertical line on a time chart: at second `t` of the load, with its label. */
export type Marker = { t: number; label: string };

/** Faults whose lines would fall within this many seconds of each other share one line. */
const SAME_MARK_SECONDS = 0.5;

/**
 * Where each fault goes on the run's charts: at the second it was applied once it was, else at its
 * planned second. Faults of the same moment share one line, their labels joined.
 */
export function faultMarkers(faults: readonly TFaultRecord[] | undefined): Marker[] {
  const marks = (faults ?? [])
    .map((f) => ({ t: f.actual ? f.actual.atMs / 1000 : f.at, label: f.actual?.error ? `${faultLabel(f)} (failed)` : faultLabel(f) }))
    .sort((a, b) => a.t - b.t);
  const out: Marker[] = [];
  for (const m of marks) {
    const last = out.at(-1);
    if (last && m.t - last.t < SAME_MARK_SECONDS) last.label = `${last.label}, ${m.label}`;
    else out.push({ ...m });
  }
  return out;
}

const PARAM_TEXT: Record<"ms" | "jitterMs" | "percent" | "kbps", (v: number) => string> = {
  ms: (v) => `${v} ms`,
  jitterMs: (v) => `± ${v} ms`,
  percent: (v) => `${v} %`,
  kbps: (v) => `${v} kbps`,
};

/** "delay 200 ms ± 20 ms", "loss 5 %", "stop". */
export function faultActionText(f: Pick<TFault, "action" | "ms" | "jitterMs" | "percent" | "kbps">): string {
  const params = FAULT_PARAMS[f.action].flatMap((p) => (f[p] === undefined ? [] : [PARAM_TEXT[p](f[p])]));
  return [f.action, ...params].join(" ");
}

/** "3 × 502, 1 × conn"; empty without errors. */
export function errorKindsText(errors: TErrorCounts | undefined): string {
  return ERROR_KINDS.filter((k) => errors?.[k])
    .map((k) => `${errors![k]} × ${k}`)
    .join(", ");
}

const REPLICA_ROLE = SERVICE_ROLE;

/** Actions that only undo an earlier fault: their effect is the return, never a shift. */
const UNDOING = new Set<FaultAction>(Object.values(UNDO).flat());

/**
 * Why a fault's shift or return time is empty (null in the summary), for the fault table's tooltip;
 * undefined when it has one.
 */
export function effectGaps(
  faults: readonly Pick<TFault, "at" | "action" | "target">[],
  index: number,
  effect: Pick<TFaultEffect, "shiftSeconds" | "returnSeconds">,
): { shift?: string; return?: string } {
  const f = faults[index];
  if (!f) return {};
  const notReplica = "not a replica: only a replica has a share of the load to lose and win back";
  if (f.target.role !== REPLICA_ROLE) return { shift: notReplica, return: notReplica };
  const gaps: { shift?: string; return?: string } = {};
  const undoing = UNDOING.has(f.action) && f.action !== "restart";
  if (effect.shiftSeconds === null) {
    gaps.shift = undoing
      ? "undoes an earlier fault: its return is in this row, its shift in the fault's own"
      : "the load never moved away from it";
  }
  if (effect.returnSeconds === null) {
    const same = (g: Pick<TFault, "target">) => g.target.role === f.target.role && g.target.index === f.target.index;
    const undone =
      f.action === "restart" || faults.some((g, i) => i !== index && same(g) && g.at >= f.at && UNDO[f.action]?.includes(g.action));
    gaps.return = undoing
      ? "the load was not back within the load's end"
      : effect.shiftSeconds === null
        ? "never moved away, so nothing to come back from"
        : undone
          ? "not back within the load"
          : "nothing undid it within the load";
  }
  return gaps;
}

/** A fault row of the form: the body's fault, with its numbers possibly not yet typed (NaN or undefined). */
export type FaultFormValue = {
  at: number;
  action: FaultAction;
  target: { role: string; index: number };
  ms?: number;
  jitterMs?: number;
  percent?: number;
  kbps?: number;
};

/** The fault as the API takes it: only the parameters its action takes (a row keeps what was typed for another action). */
export function faultBody(f: FaultFormValue): TFaultInput {
  const body: TFaultInput = { at: f.at, action: f.action, target: { role: f.target.role, index: f.target.index } };
  for (const p of FAULT_PARAMS[f.action]) if (f[p] !== undefined) body[p] = f[p];
  return body;
}

/** What a parameter is prefilled with when an action that needs it is picked. */
export const PARAM_DEFAULTS: Partial<Record<"ms" | "percent" | "kbps", number>> = { ms: 200, percent: 10, kbps: 1000 };

/**
 * The row "Add fault" appends: the undo of the last fault on its target a few seconds later (start
 * after a stop, unpause after a pause, clear after a delay), else a stop of the last replica in the
 * middle of the load.
 */
export function nextFault(
  faults: readonly FaultFormValue[],
  roles: Readonly<Record<string, FaultableRole>>,
  durationSeconds: number,
): FaultFormValue {
  const end = Math.max(0, (Number.isFinite(durationSeconds) ? durationSeconds : 0) - 1);
  const last = faults.at(-1);
  const undo = last && UNDO[last.action]?.[0];
  if (last && undo && Number.isFinite(last.at)) {
    return { at: Math.min(end, last.at + Math.max(1, Math.round(durationSeconds / 4))), action: undo, target: { ...last.target } };
  }
  const replicas = roles[REPLICA_ROLE]?.count ?? 1;
  const role = roles[REPLICA_ROLE] ? REPLICA_ROLE : (Object.keys(roles)[0] ?? REPLICA_ROLE);
  return {
    at: Math.min(end, Math.floor(durationSeconds / 3)),
    action: "stop",
    target: { role, index: role === REPLICA_ROLE ? replicas - 1 : 0 },
  };
}

/** The form paths of a fault row that are on screen: its errors show on the row, not in the form's error box. */
export function faultFieldPaths(faults: readonly FaultFormValue[]): string[] {
  return faults.flatMap((f, i) => [
    `faults.${i}.at`,
    `faults.${i}.action`,
    `faults.${i}.target.role`,
    `faults.${i}.target.index`,
    ...FAULT_PARAMS[f.action].map((p) => `faults.${i}.${p}`),
  ]);
}

/** A role in the target select: "replicas (app) × 3". */
export const roleOption = (role: string, r: FaultableRole | undefined): string =>
  r ? `${r.title} × ${r.count}` : `${role} (not in this topology)`;

type ComparedRun = { id: string; faults?: readonly TFaultRecord[]; summary: { faults?: readonly TFaultEffect[] } | null };

export type FaultCompareRow = { key: string; label: string; cells: (TFaultEffect | null)[] };

/**
 * The runs' faults side by side: one row per fault label ("stop app-2 @30s"; a label that repeats
 * in a run gets its own row per occurrence), each run's effect of it or null where it had no such
 * fault (or no summary); and per run the failed requests of all its faults' windows.
 */
export function faultCompareRows(runs: readonly ComparedRun[]): { rows: FaultCompareRow[]; totals: (number | null)[] } {
  const rows = new Map<string, FaultCompareRow>();
  runs.forEach((run, r) => {
    const seen = new Map<string, number>();
    (run.faults ?? []).forEach((f, i) => {
      const label = faultLabel(f);
      const n = (seen.get(label) ?? 0) + 1;
      seen.set(label, n);
      const key = n === 1 ? label : `${label} #${n}`;
      let row = rows.get(key);
      if (!row)
        rows.set(
          key,
          (row = { key, label: `${faultActionText(f)} ${f.target.role}-${f.target.index} @${f.at}s`, cells: runs.map(() => null) }),
        );
      row.cells[r] = run.summary?.faults?.[i] ?? null;
    });
  });
  const sorted = [...rows.values()].sort((a, b) => atOf(a) - atOf(b));
  const totals = runs.map((run) => (run.summary?.faults ? run.summary.faults.reduce((n, e) => n + e.failedRequests, 0) : null));
  return { rows: sorted, totals };
}

const atOf = (row: FaultCompareRow) => Number(/@(\d+)s/.exec(row.key)?.[1] ?? 0);

/**
 * Where the timeline's labels go: each on the first lane where it clears the labels already
 * there, in the order of their marks; one that would run past the right end ends at its mark.
 * `x` and `width` in pixels, `total` the timeline's width.
 */
export function labelLanes(
  marks: readonly { x: number; width: number }[],
  total: number,
  gap = 8,
): { lane: number; alignRight: boolean }[] {
  const ends: number[] = [];
  const out: { lane: number; alignRight: boolean }[] = new Array(marks.length);
  const order = marks.map((m, i) => ({ ...m, i })).sort((a, b) => a.x - b.x || a.i - b.i);
  for (const m of order) {
    const alignRight = m.x + m.width > total && m.x - m.width >= 0;
    const [start, end] = alignRight ? [m.x - m.width, m.x] : [m.x, m.x + m.width];
    let lane = ends.findIndex((e) => e + gap <= start);
    if (lane === -1) lane = ends.push(end) - 1;
    else ends[lane] = end;
    out[m.i] = { lane, alignRight };
  }
  return out;
}
