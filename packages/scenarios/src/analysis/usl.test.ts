/*
 * Expected values from scipy 1.17.1 / numpy 2.4.6 (Python 3.11). To re-run:
 *
 * import numpy as np
 * import scipy
 * from scipy.optimize import curve_fit
 *
 * print("scipy", scipy.__version__, "numpy", np.__version__)
 *
 * def usl(n, sigma, kappa, lam):
 *     return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))
 *
 * def fit(n, x):
 *     n = np.asarray(n, float)
 *     x = np.asarray(x, float)
 *     p0 = [0.1, 0.001, x[n == n.min()].mean() / n.min()]
 *     tight = dict(xtol=1e-15, ftol=1e-15, gtol=1e-15)
 *     trf, _ = curve_fit(usl, n, x, p0=p0, bounds=(0, np.inf), max_nfev=100000, **tight)
 *     # The bounded (trf) solver stops early in the long σ-κ valley; MINPACK's lm, started there, goes to the bottom.
 *     # The bounds are inactive at its optimum (asserted), so it is the bounded least-squares fit.
 *     (s, k, l), _ = curve_fit(usl, n, x, p0=trf, method="lm", maxfev=100000, **tight)
 *     assert s > 0 and k > 0 and l > 0
 *     sse = lambda p: ((x - usl(n, *p)) ** 2).sum()
 *     sst = ((x - x.mean()) ** 2).sum()
 *     peak = np.sqrt((1 - s) / k)
 *     print(f"trf: sigma={trf[0]!r} kappa={trf[1]!r} lambda={trf[2]!r} sse={sse(trf)!r}")
 *     print(f"lm:  sigma={s!r} kappa={k!r} lambda={l!r} sse={sse([s, k, l])!r}")
 *     print(f"     peakN={peak!r} peakX={usl(peak, s, k, l)!r} r2={1 - sse([s, k, l]) / sst!r}")
 *
 * # R package usl, data(specsdm91)
 * fit([1, 18, 36, 72, 108, 144, 216], [64.9, 995.9, 1652.4, 1853.2, 1828.9, 1775.0, 1702.2])
 * # 3 repetitions at each N
 * fit([1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32],
 *     [412.3, 398.1, 405.7, 780.4, 795.2, 770.9, 1402.8, 1388.5, 1421.0,
 *      2105.3, 2150.7, 2088.2, 2460.1, 2398.6, 2511.4, 2210.5, 2305.8, 2250.2])
 */
import { describe, expect, it } from "vitest";
import { fitUsl, uslCurve, uslThroughput, TUslFit, TUslPoint } from "./usl";

const expectClose = (actual: number | null, expected: number, rel = 1e-6) => {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(rel * Math.abs(expected));
};

const fitted = (fit: TUslFit) => {
  if (!fit.ok) throw new Error(fit.reason);
  return fit;
};

const series = (ns: readonly number[], xs: readonly number[]): TUslPoint[] => ns.map((n, i) => ({ n, x: xs[i]! }));

/**
 * Gunther's SPEC SDM91 figures for a 16-CPU Sun SPARCcenter 2000 (simulated users → scripts per
 * hour), as shipped in the R package usl (`data(specsdm91)`, read from its data/specsdm91.rda).
 */
const specsdm91 = series([1, 18, 36, 72, 108, 144, 216], [64.9, 995.9, 1652.4, 1853.2, 1828.9, 1775.0, 1702.2]);

describe("fitUsl", () => {
  it("fits the R package's SPEC SDM91 data set like scipy", () => {
    const fit = fitted(fitUsl(specsdm91));
    // scipy lm: sigma=0.02772847529403392 kappa=0.00010436548382999702 lambda=89.99523255195888
    //           peakN=96.51956098923849 peakX=1883.898997168448 r2=0.9895614780531269 (sse 27453.719584037368).
    // scipy's bounded trf stopped short at sigma=0.027728413789641724 kappa=0.00010436577228118558 lambda=89.9951830121865
    // (sse 27453.71958539984, higher), 2e-6 away: the σ-κ valley is long and flat.
    // The R package usl 3.0.3 (README) reports alpha (σ) 0.0277285, beta (κ) 0.0001044, gamma (λ) 89.9952330 and
    // "peak: throughput 1884 at load 96.52", its tests/fitted.Rout.save the fitted values below: the same fit,
    // agreeing with lm, not trf, in λ's 7th figure.
    expectClose(fit.sigma, 0.02772847529403392);
    expectClose(fit.kappa, 0.00010436548382999702);
    expectClose(fit.lambda, 89.99523255195888);
    expectClose(fit.peakN, 96.51956098923849);
    expectClose(fit.peakX, 1883.898997168448);
    expectClose(fit.r2, 0.9895614780531269, 1e-9);
    expect(fit.points).toEqual(specsdm91);
    expect([1, 18, 36, 72, 108, 144, 216].map((n) => Math.round(uslThroughput(fit, n)))).toEqual([90, 1078, 1541, 1850, 1879, 1822, 1646]);
  });

  it("uses every repetition at the same N", () => {
    const points = series(
      [1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32],
      [
        412.3, 398.1, 405.7, 780.4, 795.2, 770.9, 1402.8, 1388.5, 1421.0, 2105.3, 2150.7, 2088.2, 2460.1, 2398.6, 2511.4, 2210.5, 2305.8,
        2250.2,
      ],
    );
    const fit = fitted(fitUsl(points));
    // scipy lm: sigma=0.07061084273179412 kappa=0.0030227039186693813 lambda=433.4458822704887
    //           peakN=17.534807246706574 peakX=2496.9058831159205 r2=0.9976265656702498
    expectClose(fit.sigma, 0.07061084273179412);
    expectClose(fit.kappa, 0.0030227039186693813);
    expectClose(fit.lambda, 433.4458822704887);
    expectClose(fit.peakN, 17.534807246706574);
    expectClose(fit.peakX, 2496.9058831159205);
    expectClose(fit.r2, 0.9976265656702498, 1e-9);
    expect(fit.points).toHaveLength(18);
  });

  it("finds no peak in linear scaling", () => {
    const fit = fitted(fitUsl(series([1, 2, 4, 8, 16], [100, 200, 400, 800, 1600])));
    expect(fit).toMatchObject({ sigma: 0, kappa: 0, peakN: null, peakX: null });
    expectClose(fit.lambda, 100, 1e-9);
    expectClose(fit.r2, 1, 1e-12);
  });

  it("finds no peak in noisy near-linear scaling (κ held at its bound 0)", () => {
    const fit = fitted(fitUsl(series([1, 2, 4, 8, 16], [101, 196, 408, 792, 1600])));
    expect(fit.kappa).toBe(0);
    expect(fit.peakN).toBeNull();
    expect(fit.r2!).toBeGreaterThan(0.999);
  });

  it("finds no peak when throughput only levels off (Amdahl: κ = 0)", () => {
    const amdahl = [1, 2, 4, 8, 16, 32].map((n) => ({ n, x: uslThroughput({ sigma: 0.05, kappa: 0, lambda: 100 }, n) }));
    const fit = fitted(fitUsl(amdahl));
    expectClose(fit.sigma, 0.05, 1e-9);
    expect(fit.kappa).toBe(0);
    expect(fit.peakN).toBeNull();
  });

  it("recovers the coefficients of an exact USL curve", () => {
    const params = { sigma: 0.02, kappa: 0.0005, lambda: 250 };
    const fit = fitted(fitUsl([1, 4, 8, 16, 32, 64].map((n) => ({ n, x: uslThroughput(params, n) }))));
    expectClose(fit.sigma, params.sigma, 1e-9);
    expectClose(fit.kappa, params.kappa, 1e-9);
    expectClose(fit.lambda, params.lambda, 1e-9);
    expectClose(fit.peakN, Math.sqrt(0.98 / 0.0005), 1e-9);
  });

  it("refuses fewer than 4 distinct N without repetitions, and fewer than 3 with them", () => {
    expect(fitUsl(series([1, 2, 4], [100, 190, 350]))).toEqual({
      ok: false,
      reason: "the USL needs at least 4 distinct points (N values), or 3 with repetitions; got 3 without repetitions",
    });
    expect(fitUsl(series([1, 1, 2, 2], [100, 101, 190, 191]))).toMatchObject({ ok: false, reason: expect.stringContaining("got 2") });
    expect(fitUsl([])).toMatchObject({ ok: false, reason: expect.stringContaining("got 0") });
  });

  it("fits 3 distinct N with repetitions, marked untested (the curve passes near the 3 means)", () => {
    const fit = fitUsl(series([1, 1, 2, 2, 4, 4], [100, 101, 190, 191, 350, 352]));
    expect(fit).toMatchObject({ ok: true, untested: true });
    if (!fit.ok) throw new Error(fit.reason);
    expect(fit.lambda).toBeGreaterThan(90);
    expect(fitUsl(series([1, 2, 3, 4], [100, 190, 270, 350]))).toMatchObject({ ok: true, untested: false });
  });

  it("refuses x ≤ 0, N < 1 and values that are not finite", () => {
    const base = series([1, 2, 4, 8], [100, 190, 350, 600]);
    for (const bad of [
      { n: 16, x: 0 },
      { n: 16, x: -5 },
      { n: 0, x: 100 },
      { n: 0.5, x: 100 },
      { n: Number.NaN, x: 100 },
      { n: 16, x: Number.POSITIVE_INFINITY },
    ]) {
      const fit = fitUsl([...base, bad]);
      expect(fit.ok).toBe(false);
      if (!fit.ok) expect(fit.reason).toBe(`the USL needs finite points with N ≥ 1 and throughput x > 0; got N=${bad.n}, x=${bad.x}`);
    }
  });
});

describe("uslCurve", () => {
  it("samples the fitted curve evenly from N = 1", () => {
    const fit = fitted(fitUsl(specsdm91));
    const curve = uslCurve(fit, 216, 4);
    expect(curve.map((p) => p.n)).toEqual([1, 54.75, 108.5, 162.25, 216]);
    for (const p of curve) expect(p.x).toBe(uslThroughput(fit, p.n));
    expect(uslCurve(fit, 10, 0)).toHaveLength(2);
  });
});
