import { describe, expect, it } from "vitest";
import { fixedDomainTicks, niceTicks, previewOf, PREVIEW_HEIGHT } from "./chart-preview";

describe("niceTicks (Recharts' getNiceTickValues, auto mode)", () => {
  it("puts 0 and four steps of a nice size over a value axis", () => {
    expect(niceTicks(0, 9800)).toEqual([0, 2500, 5000, 7500, 10000]);
    expect(niceTicks(0, 17.1)).toEqual([0, 5, 10, 15, 20]);
    expect(niceTicks(0, 0.9)).toEqual([0, 0.25, 0.5, 0.75, 1]);
  });

  it("takes a larger step when four do not reach the maximum", () => {
    const ticks = niceTicks(0, 399);
    expect(ticks).toHaveLength(5);
    expect(ticks[4]).toBeGreaterThanOrEqual(399);
    expect(ticks).toEqual([0, 100, 200, 300, 400]);
  });

  it("uses whole steps when asked", () => {
    expect(niceTicks(0, 3599, 5, false)).toEqual([0, 900, 1800, 2700, 3600]);
    expect(niceTicks(0, 59, 5, false)).toEqual([0, 15, 30, 45, 60]);
  });

  it("agrees with Recharts' own function over many ranges", async () => {
    // recharts' internal module: the rule the preview copies, so that its axes match when Recharts takes over.
    const { getNiceTickValues } = (await import("recharts/lib/util/scale/getNiceTickValues.js" as string)) as {
      getNiceTickValues: (domain: [number, number], count: number, allowDecimals: boolean) => number[];
    };
    for (const max of [0.07, 0.9, 3.3, 17.1, 99, 101, 399, 1565, 9800, 21045, 3599, 1e6 + 7])
      for (const min of [0, 1, 7].filter((m) => m <= max)) {
        expect(niceTicks(min, max), `[${min}, ${max}]`).toEqual(getNiceTickValues([min, max], 5, true));
        expect(niceTicks(min, max, 5, false), `[${min}, ${max}] whole`).toEqual(getNiceTickValues([min, max], 5, false));
      }
  });

  it("puts the time axis's ticks from its first second to its last, as Recharts does for a fixed domain", async () => {
    expect(fixedDomainTicks(0, 3597, 5, false)).toEqual([0, 900, 1800, 2700, 3597]);
    expect(fixedDomainTicks(0, 59, 5, false)).toEqual([0, 15, 30, 45, 59]);
    const { getTickValuesFixedDomain } = (await import("recharts/lib/util/scale/getNiceTickValues.js" as string)) as {
      getTickValuesFixedDomain: (domain: [number, number], count: number, allowDecimals: boolean) => number[];
    };
    for (const max of [1, 4, 9, 59, 61, 299, 600, 3597, 3600, 7201])
      for (const min of [0, 1, 3].filter((m) => m < max))
        expect(fixedDomainTicks(min, max, 5, false), `[${min}, ${max}]`).toEqual(getTickValuesFixedDomain([min, max], 5, false));
  });

  it("spreads ticks around a single value", () => {
    expect(niceTicks(3, 3)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe("previewOf", () => {
  const series = [
    { key: "a", color: "#111111" },
    { key: "b", color: "#222222" },
  ];

  it("draws nothing without a value", () => {
    expect(previewOf([], series, false)).toBeNull();
    expect(previewOf([{ t: 0, a: null, b: null }], series, false)).toBeNull();
  });

  it("leaves a gap where a second has no value, as Recharts does without connectNulls", () => {
    const p = previewOf(
      [
        { t: 0, a: 1, b: 1 },
        { t: 1, a: null, b: 2 },
        { t: 2, a: 3, b: 3 },
      ],
      series,
      false,
    )!;
    expect(p.shapes[0]!.line.match(/M/g)).toHaveLength(2);
    expect(p.shapes[1]!.line.match(/M/g)).toHaveLength(1);
    expect(p.shapes[0]!.area).toBeUndefined();
  });

  it("stacks the series: the top of the second band is the sum, on an axis that reaches it", () => {
    const p = previewOf(
      [
        { t: 0, a: 40, b: 50 },
        { t: 1, a: 60, b: null },
      ],
      series,
      true,
    )!;
    expect(p.yTicks.map((t) => t.value)).toEqual([0, 25, 50, 75, 100]);
    // b's top at t=0 is 90 of 100: 10 % down the box.
    expect(p.shapes[1]!.line.startsWith(`M0,${(0.1 * PREVIEW_HEIGHT).toFixed(0)}`)).toBe(true);
    expect(p.shapes[1]!.area).toMatch(/Z$/);
  });
});
