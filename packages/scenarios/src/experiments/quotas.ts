import { cpuLimitsTotal, FieldIssue, runWarnings, TRunWarning } from "../contract/host";
import { THostFacts } from "../contract/results";
import { estimateSeconds, issueOrigin, RUN_OVERHEAD_SECONDS, TExpandedVariant, TExperimentCreate } from "./experiments";

/**
 * The lab's quotas: how long one experiment may take, and how much work the queue may hold (a
 * 2-core host runs one run at a time). Configured by the web's environment
 * (SCALELAB_MAX_EXPERIMENT_HOURS, SCALELAB_MAX_QUEUE_HOURS), in seconds here.
 */
export type TQuotas = { maxExperimentSeconds: number; maxQueueSeconds: number };

export const QUOTA_DEFAULT_HOURS = { experiment: 6, queue: 24 } as const;
export const QUOTA_ENV = { experiment: "SCALELAB_MAX_EXPERIMENT_HOURS", queue: "SCALELAB_MAX_QUEUE_HOURS" } as const;

export const DEFAULT_QUOTAS: TQuotas = {
  maxExperimentSeconds: QUOTA_DEFAULT_HOURS.experiment * 3600,
  maxQueueSeconds: QUOTA_DEFAULT_HOURS.queue * 3600,
};

/**
 * A refusal: `wait` when the work would fit once the queue drains (`retryAfterSeconds`: about when),
 * `never` when it cannot fit however empty the queue is. `path` is the field to change.
 */
export type TQuotaRefusal = { kind: "never" | "wait"; message: string; issue: FieldIssue; retryAfterSeconds?: number };

const num = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

/** "201 h", "6.5 h", "45 min": whole hours from 10 h, tenths below, minutes below an hour. */
export function hoursText(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s >= 36_000) return `${num(Math.round(s / 3600))} h`;
  if (s >= 3600) return `${num(Math.round(s / 360) / 10)} h`;
  return `${Math.max(1, Math.round(s / 60))} min`;
}

/** One line of work in the queue: a run queued or running, its load, the settle pause before it (an experiment's), when it started. */
export type TQueuedRun = { status: "queued" | "running"; loadSeconds: number; settleSeconds: number; startedAtMs: number | null };

/** The seconds of work left in the queue: each queued run whole (load, overhead, settle pause), a running one less what it has done. */
export function queuedSeconds(runs: readonly TQueuedRun[], nowMs: number): number {
  const total = runs.reduce((sum, r) => {
    const whole = r.loadSeconds + RUN_OVERHEAD_SECONDS + r.settleSeconds;
    if (r.status === "running" && r.startedAtMs !== null) return sum + Math.max(0, whole - Math.max(0, nowMs - r.startedAtMs) / 1000);
    return sum + whole;
  }, 0);
  return Math.round(total);
}

/** The seconds one stand-alone run adds to the queue. */
export const runSeconds = (loadSeconds: number): number => loadSeconds + RUN_OVERHEAD_SECONDS;

const plural = (n: number, one: string) => `${num(n)} ${one}${n === 1 ? "" : "s"}`;

/** "200 runs × 3,600 s", "12 runs of 10–60 s". */
function runsText(variants: readonly Pick<TExpandedVariant, "run">[], runs: number): string {
  const loads = variants.map((v) => v.run.workload.durationSeconds);
  const [min, max] = [Math.min(...loads), Math.max(...loads)];
  return min === max ? `${plural(runs, "run")} × ${num(max)} s` : `${plural(runs, "run")} of ${num(min)}–${num(max)} s`;
}

/**
 * An experiment whose estimate is beyond the lab's maximum, or null. The issue names the field to
 * change: the repetitions when fewer of them would fit, else where the longest variant's duration
 * was set (the base, a variant's patch or a sweep's values).
 */
export function experimentRefusal(
  input: TExperimentCreate,
  variants: readonly Pick<TExpandedVariant, "run" | "source">[],
  quotas: Pick<TQuotas, "maxExperimentSeconds">,
): TQuotaRefusal | null {
  const estimate = estimateSeconds(variants, input.repetitions, input.settleSeconds);
  if (estimate <= quotas.maxExperimentSeconds) return null;
  const runs = variants.length * input.repetitions;
  const message =
    `this experiment would take about ${hoursText(estimate)} (${runsText(variants, runs)} plus start-up and settle pauses); ` +
    `the lab allows at most ${hoursText(quotas.maxExperimentSeconds)} per experiment (${QUOTA_ENV.experiment})`;
  const onePass = estimateSeconds(variants, 1, input.settleSeconds);
  let path = "repetitions";
  if (onePass > quotas.maxExperimentSeconds || input.repetitions === 1) {
    const longest = variants.reduce((a, b) => (b.run.workload.durationSeconds > a.run.workload.durationSeconds ? b : a));
    path = issueOrigin(input, longest.source, "workload.durationSeconds");
  }
  return { kind: "never", message, issue: { path, message } };
}

/**
 * New work that would take the queue beyond its maximum, or null. `what` names the work ("this
 * run", "this experiment"); `path` is the field its issue is placed on ("" for the whole request).
 */
export function queueRefusal(
  queue: { seconds: number; runs: number },
  work: { seconds: number; what: string; path?: string },
  quotas: Pick<TQuotas, "maxQueueSeconds">,
): TQuotaRefusal | null {
  const max = quotas.maxQueueSeconds;
  if (queue.seconds + work.seconds <= max) return null;
  const limit = `the lab's queue holds at most ${hoursText(max)} of work (${QUOTA_ENV.queue})`;
  const path = work.path ?? "";
  if (work.seconds > max) {
    const message = `${work.what} would take about ${hoursText(work.seconds)} by itself; ${limit}`;
    return { kind: "never", message, issue: { path, message } };
  }
  const retryAfterSeconds = Math.ceil(queue.seconds + work.seconds - max);
  const message =
    `the queue already holds about ${hoursText(queue.seconds)} of work (${plural(queue.runs, "run")} queued or running) and ` +
    `${work.what} would add about ${hoursText(work.seconds)}; ${limit}: wait about ${hoursText(retryAfterSeconds)} for it to drain, or cancel queued runs`;
  return { kind: "wait", message, issue: { path, message }, retryAfterSeconds };
}

/**
 * An experiment's warnings before it starts: one per code, naming the variants it holds for ("every
 * variant" when all), e.g. the variants whose containers' CPU limits add up to more than the host's cores.
 */
export function experimentWarnings(
  variants: readonly Pick<TExpandedVariant, "run" | "name">[],
  host: Pick<THostFacts, "cpus">,
): TRunWarning[] {
  const over = variants.filter((v) => runWarnings(v.run, host).length > 0);
  if (over.length === 0) return [];
  const totals = over.map((v) => cpuLimitsTotal(v.run));
  const [min, max] = [Math.min(...totals), Math.max(...totals)];
  const shown = over.slice(0, 5).map((v) => `"${v.name}"`);
  const who =
    over.length === variants.length
      ? variants.length === 1
        ? ""
        : "every variant: "
      : `${over.length === 1 ? "variant" : "variants"} ${shown.join(", ")}${over.length > shown.length ? ` and ${over.length - shown.length} more` : ""}: `;
  const sum = min === max ? num(max) : `${num(min)}–${num(max)}`;
  return [
    {
      code: "cpu_oversubscribed",
      message: `${who}the containers' CPU limits add up to ${sum} cores on this ${num(host.cpus)}-core host: they will share the cores, so the figures measure the sharing too`,
    },
  ];
}
