import { z } from "zod";
import { strict } from "./fields";
import { TLatency } from "./latency";

/**
 * Thresholds: pass/fail checks over a run's whole-run figures (`p95<250`, `rps>=1000`,
 * `errorRate<0.01`), evaluated by the worker when a run succeeds into `summary.thresholds`, and
 * an experiment's comparison thresholds ("no worse than 5 % against the baseline at p < 0.05"),
 * evaluated with its statistics (../analysis/experiment-thresholds.ts). What a CI job's exit code
 * is made of.
 */

export const THRESHOLD_METRICS = ["rps", "p50", "p90", "p95", "p99", "max", "errorRate", "checks"] as const;
export type TThresholdMetric = (typeof THRESHOLD_METRICS)[number];
export const THRESHOLD_OPS = ["<", "<=", ">", ">="] as const;
export type TThresholdOp = (typeof THRESHOLD_OPS)[number];
/** What a comparison threshold can compare: the metrics the experiment's statistics compare as ratios. */
export const COMPARISON_METRICS = ["rps", "p50", "p90", "p95", "p99", "max"] as const;
export type TComparisonMetric = (typeof COMPARISON_METRICS)[number];

export const THRESHOLD_LIMITS = {
  thresholds: { max: 20 },
  worseBy: { min: 0, max: 1000 },
  p: { min: 0, max: 1 },
} as const;

/** Each metric's unit and what it is, for messages, the form's hint and the pages. */
export const THRESHOLD_METRIC_INFO: Record<TThresholdMetric, { unit: string; what: string; fraction?: true }> = {
  rps: { unit: "req/s", what: "requests per second over the run" },
  p50: { unit: "ms", what: "median latency" },
  p90: { unit: "ms", what: "90th percentile latency" },
  p95: { unit: "ms", what: "95th percentile latency" },
  p99: { unit: "ms", what: "99th percentile latency" },
  max: { unit: "ms", what: "slowest request" },
  errorRate: { unit: "", what: "share of failed requests (0–1)", fraction: true },
  checks: { unit: "", what: "pass rate of the k6 script's checks (0–1)", fraction: true },
};

const metricError = `metric must be one of: ${THRESHOLD_METRICS.join(", ")}`;
const opError = `op must be one of: ${THRESHOLD_OPS.join(" ")}`;
const valueError = "value must be a number ≥ 0";

const thresholdValue = z.number({ error: valueError }).min(0, { error: valueError });

export const ZThreshold = strict("thresholds[]", {
  /** rps (req/s), p50 p90 p95 p99 max (latency in ms), errorRate (0–1), checks (a k6 script's checks' pass rate, 0–1). */
  metric: z.enum(THRESHOLD_METRICS, { error: metricError }),
  op: z.enum(THRESHOLD_OPS, { error: opError }),
  value: thresholdValue,
})
  .superRefine((t, ctx) => {
    if (THRESHOLD_METRIC_INFO[t.metric].fraction && t.value > 1) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `value of ${t.metric} is a fraction: between 0 and 1 (0.01 = 1 %)` });
    }
  })
  .meta({ description: "A pass/fail check of a whole-run figure", examples: [{ metric: "p95", op: "<", value: 250 }] });
export type TThreshold = z.infer<typeof ZThreshold>;

export const ZThresholds = z
  .array(ZThreshold, { error: "thresholds must be an array" })
  .max(THRESHOLD_LIMITS.thresholds.max, { error: `thresholds may list at most ${THRESHOLD_LIMITS.thresholds.max} thresholds` })
  .meta({ examples: [[{ metric: "p95", op: "<", value: 250 }]] });

/**
 * An experiment's check of each variant against the baseline variant: the variant is no worse
 * than `worseBy` % at p < `p` (worse: lower req/s, higher latency). It fails when the statistics'
 * comparison is significant at `p` and the ratio is beyond the tolerance, or when the comparison
 * could not be tested (fewer than 2 runs on a side).
 */
export const ZComparisonThreshold = strict("thresholds[]", {
  metric: z.enum(COMPARISON_METRICS, {
    error: `metric of a comparison threshold must be one of: ${COMPARISON_METRICS.join(", ")} (the figures the statistics compare as ratios; for errorRate or checks use a per-run threshold such as errorRate<0.01)`,
  }),
  compare: z.literal("baseline", { error: 'compare must be "baseline"' }),
  /** Percent: 5 = at most 5 % worse. */
  worseBy: z
    .number({ error: `worseBy must be a number between 0 and ${THRESHOLD_LIMITS.worseBy.max} (percent)` })
    .min(0, { error: `worseBy must be between 0 and ${THRESHOLD_LIMITS.worseBy.max} (percent)` })
    .max(THRESHOLD_LIMITS.worseBy.max, { error: `worseBy must be between 0 and ${THRESHOLD_LIMITS.worseBy.max} (percent)` }),
  /** The significance level; 0.05 by default. */
  p: z
    .number({ error: "p must be a number between 0 and 1" })
    .min(0, { error: "p must be between 0 and 1" })
    .max(1, { error: "p must be between 0 and 1" })
    .default(0.05),
}).meta({
  description: "Each variant no worse than worseBy % against the baseline variant at p < p",
  examples: [{ metric: "rps", compare: "baseline", worseBy: 5, p: 0.05 }],
});
export type TComparisonThreshold = z.infer<typeof ZComparisonThreshold>;

export const isComparisonThreshold = (t: unknown): boolean => typeof t === "object" && t !== null && "compare" in t;

/**
 * An experiment's threshold: a per-run one (applied to every run) or a comparison. Parsed by the
 * schema its `compare` field picks, so that an issue names the field at fault (a plain union
 * would only say that neither matched).
 */
export const ZExperimentThreshold = z.preprocess(
  (value, ctx) => {
    const parsed = (isComparisonThreshold(value) ? ZComparisonThreshold : ZThreshold).safeParse(value);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, input: value } as never);
    return value;
  },
  z.union([ZThreshold, ZComparisonThreshold]),
);
export type TExperimentThreshold = z.infer<typeof ZExperimentThreshold>;

export const ZExperimentThresholds = z
  .array(ZExperimentThreshold, { error: "thresholds must be an array" })
  .max(THRESHOLD_LIMITS.thresholds.max, { error: `thresholds may list at most ${THRESHOLD_LIMITS.thresholds.max} thresholds` })
  .meta({
    description:
      "Per-run thresholds ({metric, op, value}), added to every run's own, and comparisons with the baseline variant ({metric, compare, worseBy, p})",
    examples: [
      [
        { metric: "errorRate", op: "<", value: 0.01 },
        { metric: "rps", compare: "baseline", worseBy: 5, p: 0.05 },
      ],
    ],
  });

/** The issues of a run's thresholds against its workload: `checks` needs a k6 script. */
export function thresholdIssues(
  thresholds: readonly Pick<TThreshold, "metric">[],
  workload: { script?: unknown },
  at: (string | number)[] = ["thresholds"],
): { path: (string | number)[]; message: string }[] {
  if (workload.script !== undefined) return [];
  return thresholds.flatMap((t, i) =>
    t.metric === "checks"
      ? [
          {
            path: [...at, i, "metric"],
            message: `${at.join(".")}.${i}.metric checks is the pass rate of a k6 script's checks, and this run has no workload.script; without one: ${THRESHOLD_METRICS.filter((m) => m !== "checks").join(", ")}`,
          },
        ]
      : [],
  );
}

/** `p95<250`: the text form of a threshold (the CLI's --threshold, the form's lines). */
export const thresholdText = (t: Pick<TThreshold, "metric" | "op" | "value">): string => `${t.metric}${t.op}${t.value}`;

/** A comparison threshold in words: `rps no worse than 5 % vs baseline (p < 0.05)`. */
export const comparisonText = (t: Pick<TComparisonThreshold, "metric" | "worseBy" | "p">): string =>
  `${t.metric} no worse than ${t.worseBy} % vs baseline (p < ${t.p})`;

const TEXT_FORM = /^([A-Za-z0-9]+)\s*(<=|>=|=<|=>|<|>|==|=|!=)?\s*(.*)$/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export type TParsedThreshold = { ok: true; threshold: TThreshold } | { ok: false; error: string };

/**
 * Parses the text form `p95<250`, `rps>=1000`, `errorRate<0.01` (spaces allowed; `ms` after a
 * latency, `%` after errorRate or checks: `errorRate<1%` is 0.01). The error names what is allowed.
 */
export function parseThreshold(text: string): TParsedThreshold {
  const trimmed = text.trim();
  const fail = (error: string): TParsedThreshold => ({
    ok: false,
    error: `"${trimmed}": ${error} (e.g. p95<250, rps>=1000, errorRate<0.01)`,
  });
  if (!trimmed) return fail("empty threshold");
  const m = TEXT_FORM.exec(trimmed);
  if (!m) return fail(metricError);
  const [, metricText, op, rest] = m as unknown as [string, string, string | undefined, string];
  const metric = THRESHOLD_METRICS.find((x) => x.toLowerCase() === metricText.toLowerCase());
  if (!metric) return fail(`unknown metric ${metricText}: ${metricError}`);
  if (!op || !(THRESHOLD_OPS as readonly string[]).includes(op)) {
    return fail(op ? `unknown operator ${op}: ${opError}` : `no operator after ${metric}: ${opError}`);
  }
  let valueText = rest.trim();
  const info = THRESHOLD_METRIC_INFO[metric];
  let scale = 1;
  if (info.unit === "ms" && /ms$/i.test(valueText)) valueText = valueText.slice(0, -2).trim();
  else if (info.fraction && valueText.endsWith("%")) {
    valueText = valueText.slice(0, -1).trim();
    scale = 0.01;
  }
  if (!NUMBER.test(valueText))
    return fail(`${valueText ? `${valueText} is not a number` : `no value after ${metric}${op}`}: ${valueError}`);
  const value = Number(valueText) * scale;
  const parsed = ZThreshold.safeParse({ metric, op, value });
  if (!parsed.success) return fail(parsed.error.issues[0]!.message);
  return { ok: true, threshold: parsed.data };
}

export const ZThresholdResult = z.object({
  metric: z.enum(THRESHOLD_METRICS),
  op: z.enum(THRESHOLD_OPS),
  value: z.number(),
  actual: z.number().nullable().describe("the run's figure; null when it does not exist (e.g. no check ran)"),
  passed: z.boolean(),
});
export type TThresholdResult = z.infer<typeof ZThresholdResult>;

/** `summary.thresholds`: every threshold of the run with its actual figure; absent when the run has none. */
export const ZThresholdsOutcome = z.object({
  passed: z.boolean().describe("every threshold passed"),
  results: z.array(ZThresholdResult),
});
export type TThresholdsOutcome = z.infer<typeof ZThresholdsOutcome>;

/** What evaluateThresholds reads of a run's summary (ZRunSummary has it). */
export type ThresholdFigures = {
  rps: number;
  errorRate: number;
  latencyMs: TLatency;
  script?: { checks: readonly { passed: number; failed: number }[] };
};

/** A metric's figure in a summary; null when it does not exist (no check ran, no latency measured). */
export function thresholdActual(metric: TThresholdMetric, s: ThresholdFigures): number | null {
  const finite = (v: number | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  switch (metric) {
    case "rps":
      return finite(s.rps);
    case "errorRate":
      return finite(s.errorRate);
    case "checks": {
      const checks = s.script?.checks ?? [];
      const passed = checks.reduce((n, c) => n + c.passed, 0);
      const total = passed + checks.reduce((n, c) => n + c.failed, 0);
      return total > 0 ? passed / total : null;
    }
    default:
      return finite(s.latencyMs[metric]);
  }
}

export function thresholdHolds(op: TThresholdOp, actual: number, value: number): boolean {
  switch (op) {
    case "<":
      return actual < value;
    case "<=":
      return actual <= value;
    case ">":
      return actual > value;
    case ">=":
      return actual >= value;
  }
}

/** Each threshold against the run's figures; a missing figure fails its threshold. */
export function evaluateThresholds(thresholds: readonly TThreshold[], summary: ThresholdFigures): TThresholdsOutcome {
  const results = thresholds.map((t): TThresholdResult => {
    const actual = thresholdActual(t.metric, summary);
    return { metric: t.metric, op: t.op, value: t.value, actual, passed: actual !== null && thresholdHolds(t.op, actual, t.value) };
  });
  return { passed: results.every((r) => r.passed), results };
}

/** A metric's figure for people: `312 ms`, `1,204 req/s`, `0.8 %` (fractions as percentages). */
export function thresholdFigure(metric: TThresholdMetric, actual: number | null): string {
  if (actual === null) return "—";
  const info = THRESHOLD_METRIC_INFO[metric];
  const n = (v: number, max: number) => v.toLocaleString("en-US", { maximumFractionDigits: max });
  if (info.fraction) return `${n(actual * 100, 3)} %`;
  return `${n(actual, actual >= 100 ? 0 : 2)} ${info.unit}`;
}
