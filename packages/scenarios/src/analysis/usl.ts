import { USL_FIT_MIN_N, USL_MIN_POINTS } from "../experiments/experiments";
/**
 * Gunther's Universal Scalability Law, X(N) = λN / (1 + σ(N − 1) + κN(N − 1)), fitted to measured
 * throughput X at concurrency (or replicas, or load) N: σ is contention (serialised work), κ
 * coherency (crosstalk between the N), λ the throughput of one.
 */
import { levenbergMarquardt } from "ml-levenberg-marquardt";

export type TUslPoint = { n: number; x: number };

export type TUslFit =
  | {
      ok: true;
      sigma: number;
      kappa: number;
      lambda: number;
      /** Where throughput peaks: √((1 − σ)/κ); null when κ = 0 or σ ≥ 1 (it only grows or levels off). */
      peakN: number | null;
      peakX: number | null;
      /** 1 − SSE/SST over the measured x; null when every x is the same (nothing to explain). */
      r2: number | null;
      points: TUslPoint[];
      /** Fewer distinct N than USL_MIN_POINTS (3, with repetitions): the curve is fitted, not tested. */
      untested: boolean;
    }
  | { ok: false; reason: string };

export type TUslParams = { sigma: number; kappa: number; lambda: number };

export function uslThroughput({ sigma, kappa, lambda }: TUslParams, n: number): number {
  return (lambda * n) / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

export function uslPeakN({ sigma, kappa }: Pick<TUslParams, "sigma" | "kappa">): number | null {
  return kappa > 0 && sigma < 1 ? Math.sqrt((1 - sigma) / kappa) : null;
}

const MIN_DISTINCT_N = USL_MIN_POINTS;

/** Starting (σ, κ) for the solver; λ starts from the smallest N's throughput per unit of N. */
const STARTS: readonly (readonly [number, number])[] = [
  [0.1, 0.001],
  [0.01, 0.00001],
  [0.5, 0.01],
];

/**
 * Least-squares fit of the USL with σ ≥ 0, κ ≥ 0, λ > 0 (Levenberg-Marquardt from a few starts,
 * the best kept). Repetitions at the same N are all used. Refused, with a reason, for fewer than
 * 4 distinct N (3 parameters leave nothing to check the fit against) unless 3 have repetitions
 * (then fitted and marked `untested`), and for a point that is not finite, has N < 1 or x ≤ 0.
 */
export function fitUsl(points: readonly TUslPoint[]): TUslFit {
  const bad = points.find((p) => !Number.isFinite(p.n) || !Number.isFinite(p.x) || p.n < 1 || p.x <= 0);
  if (bad) return { ok: false, reason: `the USL needs finite points with N ≥ 1 and throughput x > 0; got N=${bad.n}, x=${bad.x}` };
  const distinct = new Set(points.map((p) => p.n)).size;
  const repeated = points.length > distinct;
  if (distinct < MIN_DISTINCT_N && !(distinct >= USL_FIT_MIN_N && repeated)) {
    return {
      ok: false,
      reason: `the USL needs at least ${MIN_DISTINCT_N} distinct points (N values), or ${USL_FIT_MIN_N} with repetitions; got ${distinct}${repeated ? "" : " without repetitions"}`,
    };
  }

  const ns = points.map((p) => p.n);
  const xs = points.map((p) => p.x);
  const nMin = Math.min(...ns);
  const atMin = points.filter((p) => p.n === nMin);
  const lambda0 = atMin.reduce((s, p) => s + p.x / p.n, 0) / atMin.length;
  // The solver damps every parameter alike, so they are scaled to be of order 1: λ by its guess,
  // σ and κ by the N they are multiplied with at the largest N, x by the largest throughput.
  const s = Math.max(...ns);
  const xScale = Math.max(...xs);
  // A scaled σ or κ below 1e-9 changes the modelled x by less than a part per billion at the largest
  // N: it is the solver's rounding, not a measured effect (exact linear data would otherwise get a
  // peak at N ≈ 10⁹). It is reported as 0.
  const coefficient = (scaled: number, scale: number) => (scaled < 1e-9 ? 0 : scaled / scale);
  const toParams = ([l, a, b]: number[]): TUslParams => ({
    lambda: l! * lambda0,
    sigma: coefficient(a!, s),
    kappa: coefficient(b!, s * s),
  });
  const c = lambda0 / xScale;
  const model =
    ([l, a, b]: number[]) =>
    (n: number) =>
      (c * l! * n) / (1 + (a! * (n - 1)) / s + (b! * n * (n - 1)) / (s * s));
  const jacobian =
    ([l, a, b]: number[]) =>
    (n: number) => {
      const t1 = (n - 1) / s;
      const t2 = (n * (n - 1)) / (s * s);
      const d = 1 + a! * t1 + b! * t2;
      const dl = (c * n) / d;
      const k = (c * l! * n) / (d * d);
      return [dl, -k * t1, -k * t2];
    };
  const data = { x: ns, y: xs.map((x) => x / xScale) };

  let best: { params: TUslParams; sse: number } | undefined;
  for (const [sigma0, kappa0] of STARTS) {
    const { parameterValues } = levenbergMarquardt(data, model, {
      initialValues: [1, sigma0 * s, kappa0 * s * s],
      minValues: [1e-12, 0, 0],
      jacobianFunction: jacobian,
      maxIterations: 500,
      // The library stops early only at an SSE this small; 0 runs every iteration and returns the best.
      errorTolerance: 0,
    });
    const params = toParams(parameterValues);
    const sse = sumOfSquares(points, params);
    if (Number.isFinite(sse) && (!best || sse < best.sse)) best = { params, sse };
  }
  if (!best) return { ok: false, reason: "the USL fit did not converge" };

  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sst = xs.reduce((a, x) => a + (x - mean) ** 2, 0);
  const peakN = uslPeakN(best.params);
  return {
    ok: true,
    ...best.params,
    peakN,
    peakX: peakN === null ? null : uslThroughput(best.params, peakN),
    r2: sst > 0 ? 1 - best.sse / sst : null,
    points: points.map((p) => ({ n: p.n, x: p.x })),
    untested: distinct < MIN_DISTINCT_N,
  };
}

/** `steps` + 1 evenly spaced points of the fitted curve from N = 1 to `nMax`, to draw it. */
export function uslCurve(fit: TUslParams, nMax: number, steps = 100): TUslPoint[] {
  const count = Math.max(1, Math.floor(steps));
  return Array.from({ length: count + 1 }, (_, i) => {
    const n = 1 + ((nMax - 1) * i) / count;
    return { n, x: uslThroughput(fit, n) };
  });
}

function sumOfSquares(points: readonly TUslPoint[], params: TUslParams): number {
  return points.reduce((sum, p) => sum + (p.x - uslThroughput(params, p.n)) ** 2, 0);
}
