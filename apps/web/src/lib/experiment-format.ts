import type { TExperimentProgress, TExperimentStatus } from "@scalelab/scenarios/experiments";
import { dash } from "./format";

/**
 * Wording and number formatting of the experiment pages: rough durations, progress lines and a
 * metric's mean ± sd, CV and confidence interval.
 */

/** A rough duration for estimates: "about 40 s", "about 6 min", "about 1 h 25 min". */
export function aboutDuration(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 55) return `about ${Math.max(5, Math.round(s / 5) * 5)} s`;
  const minutes = Math.max(1, Math.round(s / 60));
  if (minutes < 60) return `about ${minutes} min`;
  let h = Math.floor(minutes / 60);
  let m = Math.round((minutes % 60) / 5) * 5;
  if (m === 60) {
    h += 1;
    m = 0;
  }
  return m === 0 ? `about ${h} h` : `about ${h} h ${m} min`;
}

/** "once", "twice", "3 times". */
export function times(n: number): string {
  return n === 1 ? "once" : n === 2 ? "twice" : `${n} times`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Where an experiment stands: "run 3 of 12 · 9 left · about 4 min left" while running ("left" are
 * the runs after the current one), "12 runs queued · about 6 min" before, "12 of 12 runs finished" after.
 */
export function progressLine(status: TExperimentStatus, p: TExperimentProgress): string {
  const behind = p.aheadRuns > 0 ? ` · waiting behind ${plural(p.aheadRuns, "other run")} (${aboutDuration(p.aheadSeconds)})` : "";
  if (status === "queued") return `${plural(p.total, "run")} queued · ${aboutDuration(p.secondsLeft)}${behind}`;
  if (status === "running") {
    const queued = p.left - (p.current !== null ? 1 : 0);
    const head = p.current !== null ? `run ${p.current} of ${p.total}` : `${p.finished} of ${p.total} runs done`;
    return `${head} · ${queued} left · ${aboutDuration(p.secondsLeft)} left${behind}`;
  }
  return `${p.finished} of ${plural(p.total, "run")} ${status === "cancelled" ? "ended" : "finished"}`;
}

/** What went wrong so far: "1 failed, retried once", "2 cancelled", "1 of 12 runs without a result"; null when nothing did. */
export function troubleLine(p: TExperimentProgress): string | null {
  const parts: string[] = [];
  if (p.failed > 0) {
    if (p.retries === 0) parts.push(`${p.failed} failed, not retried`);
    else if (p.failed === 1 && p.retries === 1) parts.push("1 failed, retried once");
    else parts.push(`${p.failed} failed, ${plural(p.retries, "retry", "retries")}`);
  } else if (p.retries > 0) {
    parts.push(`${plural(p.retries, "retry", "retries")}`);
  }
  if (p.cancelled > 0) parts.push(`${p.cancelled} cancelled`);
  if (p.missing > 0) parts.push(`${p.missing} of ${p.planned} planned runs without a result`);
  return parts.length > 0 ? parts.join(" · ") : null;
}

/** Digits after the point for numbers of this size: none from 100, one from 10, else two. */
function decimalsFor(reference: number): number {
  const a = Math.abs(reference);
  return a >= 100 ? 0 : a >= 10 ? 1 : 2;
}

const fmt = (v: number, decimals: number) =>
  new Intl.NumberFormat("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(v);

export type MetricUnit = "req/s" | "ms";

/** Milliseconds from a second up are shown in seconds; the scale follows the mean so that mean, sd and CI agree. */
function scaleOf(unit: MetricUnit, mean: number): { factor: number; suffix: string } {
  if (unit === "ms") return mean >= 1000 ? { factor: 1 / 1000, suffix: " s" } : { factor: 1, suffix: " ms" };
  return { factor: 1, suffix: "" };
}

type Described = { mean: number | null; sd: number | null; ciLow?: number | null; ciHigh?: number | null };

/** "1,234 ± 56", "12.3 ± 1.4 ms", "1.25 ± 0.10 s"; the mean alone from a single run; a dash without one. */
export function formatMeanSd(d: Described | undefined, unit: MetricUnit): string {
  if (!d || d.mean === null) return dash;
  const { factor, suffix } = scaleOf(unit, d.mean);
  const digits = decimalsFor(d.mean * factor);
  const mean = fmt(d.mean * factor, digits);
  return d.sd === null ? `${mean}${suffix}` : `${mean} ± ${fmt(d.sd * factor, digits)}${suffix}`;
}

/** The 95 % CI of the mean: "1,180 – 1,290", "11.2 – 13.4 ms"; a dash below two runs. */
export function formatCi(d: Described | undefined, unit: MetricUnit): string {
  if (!d || d.mean === null || d.ciLow === null || d.ciLow === undefined || d.ciHigh === null || d.ciHigh === undefined) return dash;
  const { factor, suffix } = scaleOf(unit, d.mean);
  const digits = decimalsFor(d.mean * factor);
  return `${fmt(d.ciLow * factor, digits)} – ${fmt(d.ciHigh * factor, digits)}${suffix}`;
}

/** A coefficient of variation (0.042) as "4.2 %". */
export function formatCv(cv: number | null | undefined): string {
  return cv === null || cv === undefined ? dash : `${fmt(cv * 100, 1)} %`;
}

/** A ratio (1.953) as a signed change: "+95.3%". */
export function formatChange(ratio: number): string {
  const pct = (ratio - 1) * 100;
  return `${pct >= 0 ? "+" : "−"}${fmt(Math.abs(pct), 1)}%`;
}

/** A comparison as shown: its benchstat-like text, or when it could not be tested "?" with the change of the means, if any (the reason goes in the tooltip). */
export function comparisonText(c: { text: string; ratio: number | null; pValue: number | null }): string {
  if (c.pValue !== null) return c.text;
  return c.ratio === null ? "?" : `? ${formatChange(c.ratio)}`;
}

/** The tooltip of a comparison: its ratio's 95 % CI as changes, or why it was not tested. */
export function comparisonTitle(c: { ratio: number | null; ciLow: number | null; ciHigh: number | null; reason?: string }): string {
  if (c.ciLow !== null && c.ciHigh !== null) {
    const ratio = c.ratio !== null ? `${formatChange(c.ratio)}; ` : "";
    return `${ratio}95 % CI of the change: ${formatChange(c.ciLow)} to ${formatChange(c.ciHigh)}`;
  }
  return c.reason ?? "not tested";
}

/** A sweep value or a finding's evidence as text: numbers to 3 decimals, lists joined, objects as `key: value` pairs. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return dash;
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  if (typeof v === "string" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return v.map(formatValue).join(", ");
  if (typeof v === "object")
    return Object.entries(v)
      .map(([k, x]) => `${k}: ${formatValue(x)}`)
      .join(", ");
  return String(v);
}

/** "1.23e-4", "0.0321", "12.3": for the USL's coefficients, which span orders of magnitude. */
export function formatCoefficient(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return dash;
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a < 0.001 || a >= 1e6) return v.toExponential(2);
  return String(Number(v.toPrecision(3)));
}
