/**
 * A time chart drawn as a plain SVG from its rows, with no measuring: the server's HTML shows the
 * first screen's charts with it before the page's JS has run, and Recharts draws them over once it
 * has (Recharts 3 draws nothing on the server: its chart reads its size and its axes from the
 * browser, recharts/recharts#5997). The axes follow Recharts' own rules (values from 0 to a nice
 * maximum, time from the first second to the last, ticks of its adaptive step) so that little moves
 * when Recharts takes over.
 */

export type PreviewRow = { t: number } & Record<string, number | null>;

/** The drawing box: 0..WIDTH across, 0..HEIGHT down, stretched to the plot area by the SVG. */
export const PREVIEW_WIDTH = 1000;
export const PREVIEW_HEIGHT = 1000;

const digitCount = (v: number) => (v === 0 ? 1 : Math.floor(Math.log10(Math.abs(v))) + 1);

/** Rounds away binary noise (0.1 + 0.2) from a tick value. */
const clean = (v: number) => Number(v.toPrecision(12));

/** Recharts' adaptive step: the rough step rounded up to 0.05 (or 0.1) of its order of magnitude. */
function adaptiveStep(rough: number, allowDecimals: boolean, correction: number): number {
  if (rough <= 0) return 0;
  const digits = digitCount(rough);
  const magnitude = 10 ** digits;
  const scale = digits !== 1 ? 0.05 : 0.1;
  const step = clean((Math.ceil(clean(rough / magnitude / scale)) + correction) * scale * magnitude);
  return allowDecimals ? step : Math.ceil(step);
}

/**
 * The ticks Recharts puts on a number axis over [min, max] (its getNiceTickValues, the "auto" mode):
 * `count` ticks of one step, 0 among them when the interval holds it.
 */
export function niceTicks(min: number, max: number, count = 5, allowDecimals = true): number[] {
  const [lo, hi] = min <= max ? [min, max] : [max, min];
  if (lo === hi) {
    const middle = allowDecimals ? lo : Math.floor(lo);
    const mid = Math.floor((count - 1) / 2);
    return Array.from({ length: count }, (_, i) => clean(middle + (i - mid)));
  }
  for (let correction = 0; correction < 100; correction++) {
    const step = adaptiveStep(clean(clean(hi - lo) / (count - 1)), allowDecimals, correction);
    if (step <= 0) break;
    // Decimal.js's modulo truncates towards zero: the middle rounded to a step towards zero.
    const middle = lo <= 0 && hi >= 0 ? 0 : clean(Math.trunc(clean((lo + hi) / 2 / step)) * step);
    let below = Math.ceil(clean((middle - lo) / step));
    let up = Math.ceil(clean((hi - middle) / step));
    const n = below + up + 1;
    if (n > count) continue;
    if (n < count) {
      if (hi > 0) up += count - n;
      else below += count - n;
    }
    return Array.from({ length: below + up + 1 }, (_, i) => clean(middle + (i - below) * step));
  }
  return [lo, hi];
}

/**
 * The ticks Recharts puts on a number axis whose domain is fixed (the time axis, from the first
 * second to the last): steps of its adaptive size from the start, and the end.
 */
export function fixedDomainTicks(min: number, max: number, count = 5, allowDecimals = true): number[] {
  const [lo, hi] = min <= max ? [min, max] : [max, min];
  if (lo === hi) return [lo];
  const step = adaptiveStep(clean(clean(hi - lo) / (count - 1)), allowDecimals, 0);
  const values: number[] = [];
  for (let v = lo; v < hi && step > 0; v = clean(v + step)) values.push(v);
  values.push(hi);
  if (allowDecimals) return values;
  const whole = values.map((v) => Math.round(v));
  return whole.length > 1 && whole[whole.length - 1] === whole[whole.length - 2] ? whole.slice(0, -1) : whole;
}

export type PreviewSeries = { key: string; color: string };

export type PreviewShape = {
  key: string;
  color: string;
  /** The line (for a stacked chart, the top of its band). */
  line: string;
  /** A stacked chart's band, down to the series below it; absent for a line chart. */
  area?: string;
};

export type Preview = {
  /** Tick values and their place across (0–1) on the time axis. */
  xTicks: { value: number; at: number }[];
  /** Tick values and their place down (0 = top, 1 = bottom) on the value axis. */
  yTicks: { value: number; at: number }[];
  shapes: PreviewShape[];
};

const fmt = (v: number) => String(Math.round(v * 10) / 10);

/**
 * What the preview draws: a path per series in the PREVIEW_WIDTH × PREVIEW_HEIGHT box (a gap where
 * a second has no value, as Recharts leaves one), stacked when `stacked` (missing values count 0),
 * and the two axes' ticks. Null when no row has a value.
 */
export function previewOf(rows: readonly PreviewRow[], series: readonly PreviewSeries[], stacked: boolean): Preview | null {
  if (rows.length === 0 || series.length === 0) return null;
  const tMin = rows[0]!.t;
  const tMax = rows[rows.length - 1]!.t;
  // Each series' value per row; stacked, the band's bottom and top.
  const bottoms: (number | null)[][] = [];
  const tops: (number | null)[][] = [];
  let yMax = -Infinity;
  let yMin = 0;
  const base = rows.map(() => 0);
  for (const s of series) {
    const bottom: (number | null)[] = [];
    const top: (number | null)[] = [];
    rows.forEach((row, i) => {
      const v = row[s.key];
      const value = typeof v === "number" && Number.isFinite(v) ? v : null;
      if (stacked) {
        bottom.push(base[i]!);
        base[i]! += value ?? 0;
        top.push(base[i]!);
      } else {
        bottom.push(null);
        top.push(value);
      }
    });
    for (const v of top) {
      if (v === null) continue;
      yMax = Math.max(yMax, v);
      yMin = Math.min(yMin, v);
    }
    bottoms.push(bottom);
    tops.push(top);
  }
  if (yMax === -Infinity) return null;
  const xTicksValues = fixedDomainTicks(tMin, tMax, 5, false);
  const yTickValues = niceTicks(yMin, yMax, 5, true);
  const x0 = tMin;
  const x1 = tMax;
  const y0 = Math.min(yMin, yTickValues[0]!);
  const y1 = Math.max(yMax, yTickValues[yTickValues.length - 1]!);
  const xAt = (t: number) => (x1 === x0 ? 0.5 : (t - x0) / (x1 - x0));
  const yAt = (v: number) => (y1 === y0 ? 0.5 : 1 - (v - y0) / (y1 - y0));
  const px = (t: number) => fmt(xAt(t) * PREVIEW_WIDTH);
  const py = (v: number) => fmt(yAt(v) * PREVIEW_HEIGHT);

  const shapes = series.map((s, k) => {
    const top = tops[k]!;
    let line = "";
    let pen = false;
    rows.forEach((row, i) => {
      const v = top[i];
      if (v === null || v === undefined) {
        pen = false;
        return;
      }
      line += `${pen ? "L" : "M"}${px(row.t)},${py(v)}`;
      pen = true;
    });
    if (!stacked) return { key: s.key, color: s.color, line };
    const bottom = bottoms[k]!;
    let back = "";
    for (let i = rows.length - 1; i >= 0; i--) back += `L${px(rows[i]!.t)},${py(bottom[i] ?? 0)}`;
    return { key: s.key, color: s.color, line, area: `${line}${back}Z` };
  });
  return {
    xTicks: xTicksValues.map((value) => ({ value, at: xAt(value) })),
    yTicks: yTickValues.map((value) => ({ value, at: yAt(value) })),
    shapes,
  };
}
