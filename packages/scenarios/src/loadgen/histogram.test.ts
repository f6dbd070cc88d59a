import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  exactPercentile,
  HISTOGRAM_PRECISION,
  histogramCount,
  histogramOf,
  histogramPercentiles,
  mergeHistograms,
  slotOf,
  slotValue,
} from "./histogram";

/** Within the histogram's precision of the exact value (1/256, plus the k6 output's rounding to whole us). */
const close = (approxMs: number, exactMs: number) => Math.abs(approxMs - exactMs) <= exactMs * HISTOGRAM_PRECISION + 0.0015;

describe("slots", () => {
  it("are sl-wrk's (sl_slot in sl-wrk.patch) and the k6 output's (histogram_test.go) at their edges", () => {
    const cases: [number, number][] = [
      [0, 0],
      [255, 255],
      [256, 256],
      [257, 256],
      [258, 257],
      [511, 383],
      [512, 384],
      [1000, 506],
      [1024, 512],
      [1_000_000, 1780],
      [2 ** 40, 33 * 128 + 128],
    ];
    for (const [us, slot] of cases) expect(slotOf(us), `${us} us`).toBe(slot);
  });

  it("keep every latency within 1/256 of its slot's middle, and slots in order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (us) => {
        const v = slotValue(slotOf(us));
        expect(Math.abs(v - us)).toBeLessThanOrEqual(us * HISTOGRAM_PRECISION);
        expect(slotOf(us + 1)).toBeGreaterThanOrEqual(slotOf(us));
        expect(slotOf(v)).toBe(slotOf(us));
      }),
    );
  });

  it("reject what is not whole microseconds", () => {
    expect(() => slotOf(-1)).toThrow(/whole microseconds/);
    expect(() => slotOf(1.5)).toThrow(/whole microseconds/);
  });
});

describe("histograms", () => {
  it("give nearest-rank percentiles and the max; none without a latency", () => {
    const h = histogramOf(Array.from({ length: 100 }, (_, i) => (i + 1) / 10)); // 0.1 … 10 ms
    expect(histogramCount(h)).toBe(100);
    const p = histogramPercentiles(h)!;
    expect(close(p.p50, 5)).toBe(true);
    expect(close(p.p90, 9)).toBe(true);
    expect(close(p.p99, 9.9)).toBe(true);
    expect(close(p.max, 10)).toBe(true);
    expect(histogramPercentiles({})).toBeNull();
    expect(histogramPercentiles({ "300": 0 })).toBeNull();
  });

  it("merged, give the percentiles of all the values together within the precision (property)", () => {
    const latency = fc.oneof(fc.double({ min: 0.05, max: 5, noNaN: true }), fc.double({ min: 5, max: 30_000, noNaN: true }));
    fc.assert(
      fc.property(fc.array(fc.array(latency, { minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 4 }), (parts) => {
        const merged = histogramPercentiles(mergeHistograms(parts.map((p) => histogramOf(p))))!;
        const all = parts.flat().sort((a, b) => a - b);
        expect(histogramCount(mergeHistograms(parts.map((p) => histogramOf(p))))).toBe(all.length);
        for (const [key, p] of [
          ["p50", 50],
          ["p90", 90],
          ["p95", 95],
          ["p99", 99],
          ["max", 100],
        ] as const) {
          const exact = exactPercentile(all, p);
          expect(close(merged[key], exact), `${key}: ${merged[key]} vs ${exact}`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("merge by adding counts, whatever the order", () => {
    const a = { "10": 2, "300": 1 };
    const b = { "300": 4, "900": 1 };
    expect(mergeHistograms([a, b])).toEqual({ "10": 2, "300": 5, "900": 1 });
    expect(mergeHistograms([b, a])).toEqual(mergeHistograms([a, b]));
  });
});
