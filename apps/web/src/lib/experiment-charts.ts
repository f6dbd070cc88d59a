import type { TExperimentComparison, TMetricKey } from "@scalelab/scenarios/analysis";
import type { TSweepAxis } from "@scalelab/scenarios/experiments";

/** The rows behind the experiment page's charts and tables, from the experiment's view. */

type Description = { n: number; mean: number | null; sd: number | null; ciLow: number | null; ciHigh: number | null };
type VariantLike = {
  index: number;
  name: string;
  axes: Record<string, string | number | boolean>;
  statistics: { metrics: Partial<Record<TMetricKey, Description>> };
};

/** What the error bars show: the mean's 95 % confidence interval or one standard deviation either side. */
export type ErrorMode = "ci" | "sd";

export type BarRow = {
  name: string;
  /** The mean; null without a succeeded run. */
  mean: number | null;
  /** [below, above] the mean, never below zero; [0, 0] when there is no spread to show. */
  err: [number, number];
  n: number;
  baseline: boolean;
  /** The bar's ends, for the tooltip. */
  low: number | null;
  high: number | null;
};

/** One bar per variant (in the experiment's order) of a metric's mean with its error bar. */
export function barRows(variants: readonly VariantLike[], metric: TMetricKey, mode: ErrorMode, baseline: string | null): BarRow[] {
  return variants.map((v) => {
    const d = v.statistics.metrics[metric];
    const mean = d?.mean ?? null;
    let low: number | null = null;
    let high: number | null = null;
    if (d && mean !== null) {
      if (mode === "ci" && d.ciLow !== null && d.ciHigh !== null) {
        low = Math.max(0, d.ciLow);
        high = d.ciHigh;
      } else if (mode === "sd" && d.sd !== null) {
        low = Math.max(0, mean - d.sd);
        high = mean + d.sd;
      }
    }
    const err: [number, number] = mean !== null && low !== null && high !== null ? [mean - low, high - mean] : [0, 0];
    return { name: v.name, mean, err, n: d?.n ?? 0, baseline: v.name === baseline, low, high };
  });
}

/** Pixels a horizontal bar chart needs for this many bars (bars stay readable from 1 to 50). */
export const barChartHeight = (bars: number): number => 48 + Math.max(1, bars) * 30;

export type HeatCell = { variant: string; mean: number | null; n: number } | null;
export type HeatTable = {
  /** The definition's variant the grid belongs to; null without variants (the sweep alone). */
  title: string | null;
  rowField: string;
  colField: string;
  rows: (string | number | boolean)[];
  cols: (string | number | boolean)[];
  /** cells[row][col]. */
  cells: HeatCell[][];
  min: number | null;
  max: number | null;
};

/**
 * Mean req/s over a two-axis sweep: rows are the first axis' values, columns the second's. With
 * variants too, one grid per variant (a variant's points come one after another, in the sweep's order).
 */
export function heatTables(
  variants: readonly VariantLike[],
  sweep: readonly TSweepAxis[],
  defined: readonly { name: string }[] | undefined,
  metric: TMetricKey = "rps",
): HeatTable[] {
  if (sweep.length !== 2) return [];
  const [rowAxis, colAxis] = sweep as [TSweepAxis, TSweepAxis];
  const points = rowAxis.values.length * colAxis.values.length;
  const groups = defined && defined.length > 0 ? defined.map((d) => d.name) : [null];
  return groups.map((title, g) => {
    const own = variants.filter((v) => Math.floor(v.index / points) === g);
    const cells = rowAxis.values.map((r) =>
      colAxis.values.map((c): HeatCell => {
        const v = own.find((x) => x.axes[rowAxis.field] === r && x.axes[colAxis.field] === c);
        if (!v) return null;
        const d = v.statistics.metrics[metric];
        return { variant: v.name, mean: d?.mean ?? null, n: d?.n ?? 0 };
      }),
    );
    const means = cells.flat().flatMap((c) => (c && c.mean !== null ? [c.mean] : []));
    return {
      title,
      rowField: rowAxis.field,
      colField: colAxis.field,
      rows: [...rowAxis.values],
      cols: [...colAxis.values],
      cells,
      min: means.length > 0 ? Math.min(...means) : null,
      max: means.length > 0 ? Math.max(...means) : null,
    };
  });
}

const LIGHT = [244, 247, 255] as const;
const DARK = [47, 91, 234] as const;

/** A heat cell's colours: from near white (the lowest value) to the accent blue (the highest), white text on the dark end. */
export function heatShade(value: number | null, min: number | null, max: number | null): { background: string; color: string } | null {
  if (value === null || min === null || max === null) return null;
  const t = max > min ? (value - min) / (max - min) : 0.5;
  const mix = LIGHT.map((l, i) => Math.round(l + (DARK[i]! - l) * t));
  return { background: `rgb(${mix.join(", ")})`, color: t > 0.55 ? "#ffffff" : "#1c2330" };
}

/** The last part of a field's path: "replicas" for topology.service.replicas. */
export const shortField = (field: string): string => field.split(".").at(-1) ?? field;

export type ComparisonRow = { variant: string; cells: Partial<Record<TMetricKey, TExperimentComparison>> };

/** One row per variant other than the baseline, in the experiment's order, with its comparisons by metric. */
export function comparisonRows(
  comparisons: readonly TExperimentComparison[],
  variants: readonly { name: string }[],
  baseline: string | null,
): ComparisonRow[] {
  return variants
    .filter((v) => v.name !== baseline)
    .map((v) => ({
      variant: v.name,
      cells: Object.fromEntries(comparisons.filter((c) => c.variant === v.name).map((c) => [c.metric, c])),
    }))
    .filter((r) => Object.keys(r.cells).length > 0);
}

/** Round ticks from 0 to at least `max` (about `count` of them, steps of 1, 2 or 5 × 10^k); the last is the axis' end. */
export function niceTicks(max: number, count = 6): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let i = 0; ticks.length === 0 || ticks[ticks.length - 1]! < max; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}
