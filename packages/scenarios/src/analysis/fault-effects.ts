import { SERVICE_ROLE } from "../names";
import { ERROR_KINDS, faultSchedule, UNDO, FaultAction, TErrorCounts, TFault, TFaultEffect } from "../contract/faults";
import { median, round } from "./stats";

/** What the effects are read from: one per-second bucket of the load (a TSample's parts). */
export type EffectSample = {
  t: number;
  errors: number;
  backends?: Record<string, number>;
  errorKinds?: TErrorCounts;
};

/**
 * Imbalance of one spread of requests over the backends: max / mean, over every backend that
 * should take load (those with none count as 0). 1 is an even spread; N (the number of backends)
 * is everything on one. Chosen over Jain's fairness index because it reads directly as "the
 * busiest backend took k times its fair share". Undefined when nothing was answered.
 */
export function imbalanceIndex(counts: Readonly<Record<string, number>>, backends: readonly string[]): number | undefined {
  if (backends.length === 0) return undefined;
  const values = backends.map((b) => counts[b] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  return round(Math.max(...values) / (total / backends.length), 3);
}

/** The run's imbalance: over its whole-run counts, and the median of its seconds. */
export function runImbalance(samples: readonly EffectSample[], totals: Readonly<Record<string, number>>, backends: readonly string[]) {
  const run = imbalanceIndex(totals, backends);
  if (run === undefined) return undefined;
  const perSecond = samples.map((s) => imbalanceIndex(s.backends ?? {}, backends)).filter((v): v is number => v !== undefined);
  return { method: "max/mean" as const, run, medianPerSecond: perSecond.length > 0 ? round(median(perSecond), 3) : run };
}

/** Seconds a share must hold before the load counts as shifted away or back (one second is noise at low rates). */
export const SUSTAIN_SECONDS = 2;
/** How many seconds before a fault give its target's usual share. */
const BASELINE_SECONDS = 10;

const REPLICA_ROLE = SERVICE_ROLE;
const BREAKING: readonly FaultAction[] = ["stop", "kill", "restart", "pause", "delay", "loss", "bandwidth", "reset"];

/**
 * What each fault did to the load, from the per-second samples:
 * - `failedRequests` (and `errors` by kind): failures from its second up to the next fault's second
 *   (or the end of the load), so the windows split the timeline and no failure counts twice; faults
 *   of the same second share their window.
 * - `shiftSeconds` (a fault on a replica that takes it out of service or slows it): seconds from the
 *   fault to the end of the first second from which the replica's share of the answered requests
 *   stayed below half its usual share (the mean of the 10 s before; 1/N at the start) for
 *   SUSTAIN_SECONDS. Null when it never did (e.g. round robin keeps sending to a slow replica).
 * - `returnSeconds`: from the fault that undid it (start or restart after a stop, unpause after a
 *   pause, clear after a network fault; the restart itself) to the end of the first second from
 *   which the share was back above half its usual one for SUSTAIN_SECONDS. The undoing fault's row
 *   carries the same figure. Null when it did not come back within the load, or never moved away.
 * Faults on other roles (the balancer, the store) get failures only: their "share" is not a thing.
 */
export function faultEffects(
  faults: readonly TFault[],
  samples: readonly EffectSample[],
  opts: { durationSeconds: number; backends: readonly string[] },
): TFaultEffect[] {
  const schedule = faultSchedule(faults);
  const byT = new Map(samples.map((s) => [s.t, s]));
  const end = opts.durationSeconds;
  const effects: TFaultEffect[] = new Array(faults.length);
  for (const [k, { fault: f, index }] of schedule.entries()) {
    const next = schedule.slice(k + 1).find((s) => s.fault.at > f.at)?.fault.at ?? end;
    const window = seconds(f.at, next).map((t) => byT.get(t));
    const errors: TErrorCounts = {};
    for (const s of window)
      for (const kind of ERROR_KINDS) if (s?.errorKinds?.[kind]) errors[kind] = (errors[kind] ?? 0) + s.errorKinds[kind];
    const failedRequests = window.reduce((a, s) => a + (s?.errors ?? 0), 0);
    const { shiftSeconds, returnSeconds } = shares(f, index, faults, byT, opts);
    effects[index] = {
      at: f.at,
      action: f.action,
      target: { role: f.target.role, index: f.target.index },
      failedRequests,
      ...(Object.keys(errors).length > 0 && { errors }),
      shiftSeconds,
      returnSeconds,
    };
  }
  return effects;
}

const seconds = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

function shares(
  f: TFault,
  index: number,
  faults: readonly TFault[],
  byT: Map<number, EffectSample>,
  opts: { durationSeconds: number; backends: readonly string[] },
): Pick<TFaultEffect, "shiftSeconds" | "returnSeconds"> {
  const none = { shiftSeconds: null, returnSeconds: null };
  if (f.target.role !== REPLICA_ROLE) return none;
  const backend = opts.backends[f.target.index];
  if (!backend) return none;
  const same = (g: TFault) => g.target.role === f.target.role && g.target.index === f.target.index;
  // The fault this one belongs to: itself when it breaks, else the last breaking fault on the target before it.
  const breaking = BREAKING.includes(f.action)
    ? f
    : faultSchedule(faults)
        .map((s) => s.fault)
        .filter(
          (g) => same(g) && g !== f && (g.at < f.at || (g.at === f.at && faults.indexOf(g) < index)) && UNDO[g.action]?.includes(f.action),
        )
        .at(-1);
  if (!breaking) return none;
  const share = (t: number): number | undefined => {
    const counts = byT.get(t)?.backends;
    const total = counts ? Object.values(counts).reduce((a, b) => a + b, 0) : 0;
    return total > 0 ? (counts![backend] ?? 0) / total : undefined;
  };
  const before = seconds(Math.max(0, breaking.at - BASELINE_SECONDS), breaking.at)
    .map(share)
    .filter((v): v is number => v !== undefined);
  const usual = before.length > 0 ? before.reduce((a, b) => a + b, 0) / before.length : 1 / opts.backends.length;
  const half = usual / 2;
  const undo =
    breaking.action === "restart"
      ? breaking
      : faultSchedule(faults)
          .map((s) => s.fault)
          .find((g) => same(g) && g.at >= breaking.at && g !== breaking && UNDO[breaking.action]?.includes(g.action));
  const shiftEnd = undo && undo !== breaking ? undo.at : opts.durationSeconds;
  const shifted = firstSustained(breaking.at, shiftEnd, (t) => share(t) === undefined || share(t)! < half, opts.durationSeconds);
  const shiftSeconds = shifted === undefined ? null : shifted + 1 - breaking.at;
  let returnSeconds: number | null = null;
  // A load that never moved away has nothing to come back from.
  if (undo && shifted !== undefined) {
    const from = undo === breaking ? shifted : undo.at;
    const back = firstSustained(from, opts.durationSeconds, (t) => (share(t) ?? 0) >= half, opts.durationSeconds);
    returnSeconds = back === undefined ? null : back + 1 - undo.at;
  }
  return f === breaking ? { shiftSeconds, returnSeconds } : { shiftSeconds: null, returnSeconds };
}

/** The first second in [from, to) from which `holds` is true for SUSTAIN_SECONDS seconds (fewer at the end of the load). */
function firstSustained(from: number, to: number, holds: (t: number) => boolean, end: number): number | undefined {
  for (let t = from; t < to; t++) {
    const need = Math.min(SUSTAIN_SECONDS, end - t);
    if (seconds(t, t + need).every(holds)) return t;
  }
  return undefined;
}
