import { z } from "zod";
import { EXIT, type ExitCode } from "./errors";

/**
 * What a finished run or experiment means for the exit code, and the lines that say why. Pure:
 * unit-tested in outcome.test.ts; the commands print the lines on stderr (stdout is the result).
 */
export type Outcome = { code: ExitCode; lines: string[] };

/** A threshold's result (the contract's `summary.thresholds.results[]`); comparison thresholds' fields are read when present. */
const ZResult = z.looseObject({
  metric: z.string(),
  passed: z.boolean(),
  op: z.string().optional(),
  value: z.number().optional(),
  actual: z.number().nullable().optional(),
  compare: z.string().optional(),
  worseBy: z.number().optional(),
  p: z.number().optional(),
});
export const ZThresholdsOutcome = z.looseObject({ passed: z.boolean(), results: z.array(ZResult) });
export type ThresholdsOutcome = z.infer<typeof ZThresholdsOutcome>;
type Result = z.infer<typeof ZResult>;

const LATENCY = new Set(["p50", "p90", "p95", "p99", "max"]);
const unit = (metric: string) => (metric === "rps" ? " req/s" : LATENCY.has(metric) ? " ms" : "");

/** A figure as a person reads it: 3 significant digits below 100, whole numbers above, thousands separated. */
export function figure(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString("en-US");
  if (v === 0) return "0";
  return String(Number(v.toPrecision(3)));
}

/**
 * A threshold's result in words: `threshold p95<250 ms FAILED: actual 312 ms` (an experiment's
 * per-run threshold names its variant and counts its runs), or for an experiment's comparison
 * `half cpu vs base: rps no worse than 5 % (p < 0.05) FAILED: −48.1 % (ratio 0.52, 95 % CI 0.48–0.56, p 0.001)`.
 */
export function resultLine(r: Result): string {
  const verdict = r.passed ? "passed" : "FAILED";
  const variant = typeof r.variant === "string" ? r.variant : undefined;
  const num = (k: string) => (typeof r[k] === "number" ? (r[k] as number) : undefined);
  if (r.compare !== undefined) {
    const against = typeof r.baseline === "string" ? r.baseline : r.compare;
    const who = variant !== undefined ? `${variant} vs ${against}: ` : "";
    const words = `${r.metric} no worse than ${r.worseBy ?? "?"} %${r.p !== undefined ? ` (p < ${r.p})` : ""}`;
    const [ratio, low, high, p] = [num("ratio"), num("ciLow"), num("ciHigh"), num("pValue")];
    const figures = [
      ratio !== undefined ? `ratio ${figure(ratio)}` : null,
      low !== undefined && high !== undefined ? `95 % CI ${figure(low)}–${figure(high)}` : null,
      p !== undefined ? `p ${figure(p)}` : null,
    ].filter(Boolean);
    const change = typeof r.actual === "number" ? `${r.actual > 0 ? "+" : ""}${figure(r.actual)} %` : "no ratio";
    const reason = typeof r.reason === "string" ? `; ${r.reason}` : "";
    return `${who}${words} ${verdict}: ${change}${figures.length ? ` (${figures.join(", ")})` : ""}${reason}`;
  }
  const bound = `${r.metric}${r.op ?? "?"}${r.value !== undefined ? figure(r.value) : "?"}${unit(r.metric)}`;
  const actual = r.actual === null || r.actual === undefined ? "no such figure in this run" : `actual ${figure(r.actual)}${unit(r.metric)}`;
  const [runs, failedRuns] = [num("runs"), num("failedRuns")];
  const count = runs !== undefined && failedRuns !== undefined && failedRuns > 0 ? ` (${failedRuns} of ${runs} runs)` : "";
  return `${variant !== undefined ? `${variant}: ` : ""}threshold ${bound} ${verdict}: ${variant !== undefined ? actual.replace("actual", "worst") : actual}${count}`;
}

/** The thresholds' lines: the failed ones, or one line saying they passed. */
export function thresholdLines(t: ThresholdsOutcome): string[] {
  if (t.passed) return [`thresholds: all ${t.results.length} passed`];
  return t.results.filter((r) => !r.passed).map(resultLine);
}

/** The thresholds' outcome found at `value` (e.g. a summary's `thresholds`), or null when there is none. */
export function thresholdsAt(value: unknown): ThresholdsOutcome | null {
  const parsed = ZThresholdsOutcome.safeParse(value);
  return parsed.success ? parsed.data : null;
}

type RunLike = { id: string; status: string; error?: string | null; summary?: unknown };

/** 0 passed, 1 a threshold failed, 2 failed, interrupted or cancelled; a run still going is 0 (it was not waited for). */
export function runOutcome(run: RunLike): Outcome {
  const id = run.id;
  switch (run.status) {
    case "succeeded": {
      const t = thresholdsAt((run.summary as { thresholds?: unknown } | null | undefined)?.thresholds);
      if (!t) return { code: EXIT.passed, lines: [`run ${id} succeeded`] };
      return { code: t.passed ? EXIT.passed : EXIT.thresholdFailed, lines: [`run ${id} succeeded`, ...thresholdLines(t)] };
    }
    case "cancelled":
      return { code: EXIT.failed, lines: [`run ${id} was cancelled`] };
    case "failed":
    case "interrupted":
      return { code: EXIT.failed, lines: [`run ${id} ${run.status}${run.error ? `: ${run.error}` : ""}`] };
    default:
      return { code: EXIT.passed, lines: [`run ${id} is ${run.status}`] };
  }
}

type ExperimentLike = {
  id: string;
  status: string;
  progress: { planned: number; succeeded: number; missing: number; failed: number; cancelled: number };
};

/**
 * Where an experiment's thresholds' outcome is (issue 17's contract: "stored as thresholds: {passed,
 * results} in the experiment's statistics/summary"): the view's `thresholds`, else its statistics'
 * or summary's.
 */
export function experimentThresholds(view: unknown): ThresholdsOutcome | null {
  const v = view as Record<string, { thresholds?: unknown } | undefined> & { thresholds?: unknown };
  return thresholdsAt(v.thresholds) ?? thresholdsAt(v.statistics?.thresholds) ?? thresholdsAt(v.summary?.thresholds);
}

export function experimentOutcome(view: ExperimentLike): Outcome {
  const { id, progress: p } = view;
  switch (view.status) {
    case "succeeded": {
      const t = experimentThresholds(view);
      const head = `experiment ${id} succeeded: ${p.succeeded} runs`;
      if (!t) return { code: EXIT.passed, lines: [head] };
      return { code: t.passed ? EXIT.passed : EXIT.thresholdFailed, lines: [head, ...thresholdLines(t)] };
    }
    case "cancelled":
      return { code: EXIT.failed, lines: [`experiment ${id} was cancelled (${p.succeeded} of ${p.planned} runs succeeded)`] };
    case "failed":
      return {
        code: EXIT.failed,
        lines: [`experiment ${id} failed: ${p.missing} of ${p.planned} runs have no succeeded run after the retry (${p.failed} failed)`],
      };
    default:
      return { code: EXIT.passed, lines: [`experiment ${id} is ${view.status}`] };
  }
}
