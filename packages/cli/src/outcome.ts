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

/** A regression check (the contract's `regression` of a run or an experiment), as far as the CLI reads it. */
const ZRegressionResult = z.looseObject({
  variant: z.string().nullable(),
  metric: z.string(),
  baselineFigure: z.number().nullable(),
  figure: z.number().nullable(),
  ratio: z.number().nullable(),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  pValue: z.number().nullable(),
  regressed: z.boolean(),
  reason: z.string().nullable(),
});
export const ZRegression = z.looseObject({
  baselineId: z.string(),
  verdict: z.enum(["passed", "regressed", "cannot_tell"]),
  worseBy: z.number(),
  p: z.number(),
  reason: z.string().nullable(),
  results: z.array(ZRegressionResult),
});
export type Regression = z.infer<typeof ZRegression>;

const VERDICT = { passed: "passed", regressed: "REGRESSED", cannot_tell: "cannot tell" } as const;

/**
 * The regression check as a table: a head line with the verdict, then one line per variant and
 * metric, e.g. `  cpu-bound rps: 1,002 → 498 req/s, −50.3 % (ratio 0.497, 95 % CI 0.47–0.52, p 0.000) REGRESSED`.
 */
export function regressionLines(r: Regression): string[] {
  const head = `regression check against baseline ${r.baselineId} (worse by more than ${r.worseBy} % at p < ${r.p}): ${VERDICT[r.verdict]}${r.reason ? ` (${r.reason})` : ""}`;
  return [
    head,
    ...r.results.map((x) => {
      const who = `${x.variant !== null ? `${x.variant} ` : ""}${x.metric}`;
      const from =
        x.baselineFigure !== null && x.figure !== null
          ? `${figure(x.baselineFigure)} → ${figure(x.figure)}${unit(x.metric)}`
          : "no figures";
      const change = x.ratio !== null ? `, ${x.ratio < 1 ? "\u2212" : "+"}${figure(Math.abs((x.ratio - 1) * 100))} %` : "";
      const stats = [
        x.ratio !== null ? `ratio ${figure(x.ratio)}` : null,
        x.ciLow !== null && x.ciHigh !== null ? `95 % CI ${figure(x.ciLow)}–${figure(x.ciHigh)}` : null,
        x.pValue !== null ? `p ${x.pValue.toFixed(3)}` : null,
      ].filter(Boolean);
      const verdict = x.regressed ? "REGRESSED" : "ok";
      return `  ${who}: ${from}${change}${stats.length ? ` (${stats.join(", ")})` : ""} ${verdict}${x.reason ? `; ${x.reason}` : ""}`;
    }),
  ];
}

/** The regression check found in a run's or an experiment's view, or null when it has none. */
export const regressionAt = (view: unknown): Regression | null =>
  ZRegression.safeParse((view as { regression?: unknown } | null)?.regression).data ?? null;

/**
 * Why --mark-baseline must not mark it although it passed: its regression check cannot tell because
 * its own figures are missing (a baseline without them would pass every later check); null when
 * it may be marked (no check, or the check could not tell only because of the old baseline).
 */
export function markRefusal(view: unknown): string | null {
  const r = regressionAt(view);
  if (!r || r.verdict !== "cannot_tell") return null;
  const missing = r.results.filter((x) => x.figure === null);
  if (missing.length === 0) return null;
  const which = [...new Set(missing.map((x) => `${x.variant !== null ? `${x.variant} ` : ""}${x.metric}`))].join(", ");
  return `its regression check cannot tell: it has no figure for ${which}`;
}

/** A succeeded outcome with the view's regression check added: its lines after the thresholds', exit 1 when it regressed. */
function withRegression(outcome: Outcome, view: unknown): Outcome {
  const r = regressionAt(view);
  if (!r) return outcome;
  const code = r.verdict === "regressed" && outcome.code === EXIT.passed ? EXIT.thresholdFailed : outcome.code;
  return { code, lines: [...outcome.lines, ...regressionLines(r)] };
}

type RunLike = { id: string; status: string; error?: string | null; summary?: unknown; regression?: unknown };

/** 0 passed, 1 a threshold failed, 2 failed, interrupted or cancelled; a run still going is 0 (it was not waited for). */
export function runOutcome(run: RunLike): Outcome {
  const id = run.id;
  switch (run.status) {
    case "succeeded": {
      const t = thresholdsAt((run.summary as { thresholds?: unknown } | null | undefined)?.thresholds);
      if (!t) return withRegression({ code: EXIT.passed, lines: [`run ${id} succeeded`] }, run);
      return withRegression(
        { code: t.passed ? EXIT.passed : EXIT.thresholdFailed, lines: [`run ${id} succeeded`, ...thresholdLines(t)] },
        run,
      );
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
      if (!t) return withRegression({ code: EXIT.passed, lines: [head] }, view);
      return withRegression({ code: t.passed ? EXIT.passed : EXIT.thresholdFailed, lines: [head, ...thresholdLines(t)] }, view);
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
