import type { TExperimentProgress } from "@scalelab/scenarios/experiments";
import { describe, expect, it } from "vitest";
import {
  aboutDuration,
  comparisonText,
  comparisonTitle,
  formatChange,
  formatCi,
  formatCoefficient,
  formatCv,
  formatMeanSd,
  formatValue,
  progressLine,
  times,
  troubleLine,
} from "./experiment-format";

const progress = (p: Partial<TExperimentProgress>): TExperimentProgress => ({
  planned: 12,
  total: 12,
  finished: 0,
  succeeded: 0,
  failed: 0,
  retries: 0,
  cancelled: 0,
  left: 12,
  current: null,
  secondsLeft: 360,
  missing: 0,
  aheadRuns: 0,
  aheadSeconds: 0,
  ...p,
});

describe("aboutDuration", () => {
  it("rounds seconds to 5 s under a minute", () => {
    expect(aboutDuration(0)).toBe("about 5 s");
    expect(aboutDuration(12)).toBe("about 10 s");
    expect(aboutDuration(38)).toBe("about 40 s");
  });
  it("speaks in minutes up to an hour", () => {
    expect(aboutDuration(55)).toBe("about 1 min");
    expect(aboutDuration(360)).toBe("about 6 min");
    expect(aboutDuration(389)).toBe("about 6 min");
    expect(aboutDuration(3569)).toBe("about 59 min");
  });
  it("gives hours and minutes rounded to 5 min from an hour", () => {
    expect(aboutDuration(3590)).toBe("about 1 h");
    expect(aboutDuration(5100)).toBe("about 1 h 25 min");
    expect(aboutDuration(7190)).toBe("about 2 h");
  });
  it("never goes negative", () => {
    expect(aboutDuration(-20)).toBe("about 5 s");
  });
});

describe("progressLine", () => {
  it("counts the runs after the current one as left", () => {
    expect(progressLine("running", progress({ current: 3, finished: 2, left: 10, secondsLeft: 240 }))).toBe(
      "run 3 of 12 · 9 left · about 4 min left",
    );
  });
  it("says how many are done between runs (the settle pause)", () => {
    expect(progressLine("running", progress({ current: null, finished: 4, left: 8, secondsLeft: 300 }))).toBe(
      "4 of 12 runs done · 8 left · about 5 min left",
    );
  });
  it("gives the whole estimate while queued", () => {
    expect(progressLine("queued", progress({}))).toBe("12 runs queued · about 6 min");
  });
  it("says what other work the queue takes first", () => {
    expect(progressLine("queued", progress({ aheadRuns: 18, aheadSeconds: 720 }))).toBe(
      "12 runs queued · about 6 min · waiting behind 18 other runs (about 12 min)",
    );
  });
  it("counts finished runs once ended, retries included", () => {
    expect(progressLine("succeeded", progress({ total: 13, finished: 13, left: 0 }))).toBe("13 of 13 runs finished");
    expect(progressLine("failed", progress({ planned: 1, total: 1, finished: 1, left: 0 }))).toBe("1 of 1 run finished");
    expect(progressLine("cancelled", progress({ finished: 12, left: 0, cancelled: 9 }))).toBe("12 of 12 runs ended");
  });
});

describe("troubleLine", () => {
  it("is null when nothing went wrong", () => {
    expect(troubleLine(progress({}))).toBeNull();
  });
  it("says a failed run was retried", () => {
    expect(troubleLine(progress({ failed: 1, retries: 1 }))).toBe("1 failed, retried once");
    expect(troubleLine(progress({ failed: 3, retries: 2 }))).toBe("3 failed, 2 retries");
    expect(troubleLine(progress({ failed: 1, retries: 0 }))).toBe("1 failed, not retried");
  });
  it("adds cancelled runs and the slots left without a result", () => {
    expect(troubleLine(progress({ failed: 2, retries: 1, cancelled: 4, missing: 5 }))).toBe(
      "2 failed, 1 retry · 4 cancelled · 5 of 12 planned runs without a result",
    );
  });
});

describe("times", () => {
  it("words small counts", () => {
    expect([times(1), times(2), times(5)]).toEqual(["once", "twice", "5 times"]);
  });
});

describe("formatMeanSd", () => {
  it("gives req/s as whole numbers from 100 with the sd at the same precision", () => {
    expect(formatMeanSd({ mean: 1234.56, sd: 56.4 }, "req/s")).toBe("1,235 ± 56");
    expect(formatMeanSd({ mean: 45.678, sd: 2.345 }, "req/s")).toBe("45.7 ± 2.3");
  });
  it("gives latencies in ms, or in s from a second, with the unit once", () => {
    expect(formatMeanSd({ mean: 12.34, sd: 1.26 }, "ms")).toBe("12.3 ± 1.3 ms");
    expect(formatMeanSd({ mean: 3.2, sd: 0.05 }, "ms")).toBe("3.20 ± 0.05 ms");
    expect(formatMeanSd({ mean: 1250, sd: 100 }, "ms")).toBe("1.25 ± 0.10 s");
  });
  it("shows the mean alone for one run and a dash for none", () => {
    expect(formatMeanSd({ mean: 200, sd: null }, "req/s")).toBe("200");
    expect(formatMeanSd({ mean: null, sd: null }, "ms")).toBe("—");
    expect(formatMeanSd(undefined, "ms")).toBe("—");
  });
});

describe("formatCi", () => {
  it("gives both ends at the mean's precision", () => {
    expect(formatCi({ mean: 1234, sd: 50, ciLow: 1180.2, ciHigh: 1290.7 }, "req/s")).toBe("1,180 – 1,291");
    expect(formatCi({ mean: 12.3, sd: 1, ciLow: 11.24, ciHigh: 13.36 }, "ms")).toBe("11.2 – 13.4 ms");
  });
  it("is a dash below two runs", () => {
    expect(formatCi({ mean: 5, sd: null, ciLow: null, ciHigh: null }, "ms")).toBe("—");
  });
});

describe("comparisonText", () => {
  it("keeps the benchstat text of a tested comparison", () => {
    expect(comparisonText({ text: "~ (p=0.410)", ratio: 1.02, pValue: 0.41 })).toBe("~ (p=0.410)");
  });
  it("shortens an untested one to the change, its reason left to the tooltip", () => {
    expect(comparisonText({ text: "? +215.5% (needs at least 2 runs on each side)", ratio: 3.155, pValue: null })).toBe("? +215.5%");
    expect(comparisonText({ text: "? (the baseline has no runs)", ratio: null, pValue: null })).toBe("?");
  });
});

describe("small formatters", () => {
  it("formats CVs, changes and tooltips", () => {
    expect(formatCv(0.0423)).toBe("4.2 %");
    expect(formatCv(null)).toBe("—");
    expect(formatChange(1.953)).toBe("+95.3%");
    expect(formatChange(0.8)).toBe("−20.0%");
    expect(comparisonTitle({ ratio: 2, ciLow: 1.8, ciHigh: 2.2 })).toBe("+100.0%; 95 % CI of the change: +80.0% to +120.0%");
    expect(comparisonTitle({ ratio: null, ciLow: null, ciHigh: null, reason: "the baseline has no runs" })).toBe(
      "the baseline has no runs",
    );
  });
  it("formats values and coefficients", () => {
    expect(formatValue(2)).toBe("2");
    expect(formatValue(0.123456)).toBe("0.123");
    expect(formatValue(true)).toBe("true");
    expect(formatValue({ rps: 0.12234, p50: 0.1 })).toBe("rps: 0.122, p50: 0.1");
    expect(formatValue(["rps", "latencyMs.p50"])).toBe("rps, latencyMs.p50");
    expect(formatValue(null)).toBe("—");
    expect(formatCoefficient(0.000123)).toBe("1.23e-4");
    expect(formatCoefficient(0.03214)).toBe("0.0321");
    expect(formatCoefficient(1234.5)).toBe("1230");
    expect(formatCoefficient(0)).toBe("0");
    expect(formatCoefficient(null)).toBe("—");
  });
});
