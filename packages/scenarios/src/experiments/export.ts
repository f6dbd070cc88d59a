import { TRunSummary, TSample } from "../contract/results";
import { stringify } from "csv-stringify/sync";
import { thresholdText } from "../contract/thresholds";

/**
 * CSV exports of runs and experiments (csv-stringify: RFC 4180 quoting, and cells that a
 * spreadsheet would run as a formula — starting with =, +, -, @ — are prefixed with a quote).
 */

const csv = (columns: string[], rows: unknown[][]) => stringify(rows, { header: true, columns, escape_formulas: true });

const SUMMARY_COLUMNS = [
  "requests",
  "rps",
  "errors",
  "errorRate",
  "latAvgMs",
  "latP50Ms",
  "latP90Ms",
  "latP95Ms",
  "latP99Ms",
  "latMaxMs",
  "durationSeconds",
  "checksPassed",
  "checksFailed",
  "thresholds",
  "thresholdResults",
];
const summaryCells = (s: TRunSummary | null): unknown[] =>
  s
    ? [
        s.requests,
        s.rps,
        s.errors,
        s.errorRate,
        s.latencyMs.avg,
        s.latencyMs.p50,
        s.latencyMs.p90,
        s.latencyMs.p95,
        s.latencyMs.p99,
        s.latencyMs.max,
        s.durationSeconds ?? "",
        // A user's k6 script: its checks' passes and failures, all checks together.
        s.script ? s.script.checks.reduce((n, c) => n + c.passed, 0) : "",
        s.script ? s.script.checks.reduce((n, c) => n + c.failed, 0) : "",
        // The run's thresholds: passed or failed, and each one with its actual figure.
        s.thresholds ? (s.thresholds.passed ? "passed" : "failed") : "",
        s.thresholds
          ? s.thresholds.results.map((r) => `${thresholdText(r)}: ${r.actual ?? "none"} ${r.passed ? "pass" : "fail"}`).join("; ")
          : "",
      ]
    : SUMMARY_COLUMNS.map(() => "");

export type TExportRun = {
  runId: string;
  variant: string;
  axes: Record<string, unknown>;
  repetition: number;
  attempt: number;
  status: string;
  summary: TRunSummary | null;
};

/** One row per run of an experiment: its variant (and sweep values), repetition, attempt, status and whole-run figures. */
export function experimentRunsCsv(experiment: string, runs: readonly TExportRun[]): string {
  const axes = [...new Set(runs.flatMap((r) => Object.keys(r.axes)))];
  return csv(
    ["experiment", "variant", ...axes, "repetition", "attempt", "runId", "status", ...SUMMARY_COLUMNS],
    runs.map((r) => [
      experiment,
      r.variant,
      ...axes.map((a) => r.axes[a] ?? ""),
      r.repetition + 1,
      r.attempt,
      r.runId,
      r.status,
      ...summaryCells(r.summary),
    ]),
  );
}

/** Per-second samples: one row per second (and run, for an experiment), requests per backend as their own columns. */
export function samplesCsv(runs: readonly { runId: string; variant?: string; repetition?: number; samples: readonly TSample[] }[]): string {
  const backends = [...new Set(runs.flatMap((r) => r.samples.flatMap((s) => Object.keys(s.backends ?? {}))))].sort();
  const many = runs.length > 1 || runs.some((r) => r.variant !== undefined);
  const head = many ? ["runId", "variant", "repetition"] : [];
  return csv(
    [
      ...head,
      "t",
      "requests",
      "errors",
      "latAvgMs",
      "latP50Ms",
      "latP90Ms",
      "latP95Ms",
      "latP99Ms",
      "latMaxMs",
      ...backends.map((b) => `backend:${b}`),
    ],
    runs.flatMap((r) =>
      r.samples.map((s) => {
        const l = s.latencyMs;
        return [
          ...(many ? [r.runId, r.variant ?? "", r.repetition === undefined ? "" : r.repetition + 1] : []),
          s.t,
          s.requests,
          s.errors,
          ...(l ? [l.avg, l.p50, l.p90, l.p95, l.p99, l.max] : ["", "", "", "", "", ""]),
          ...backends.map((b) => s.backends?.[b] ?? 0),
        ];
      }),
    ),
  );
}

/** A file name from a user's name: ASCII letters and digits joined by single dashes, and the extension. */
export function fileName(name: string, ext: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
  return `${base || "scalelab"}.${ext}`;
}
