import { describe, expect, it } from "vitest";
import { regressionHeading, regressionWords } from "./regression-text";

describe("regressionWords", () => {
  it("says it waits for a run or experiment still in progress, not that it cannot tell", () => {
    expect(regressionWords("cannot_tell", "run", false)).toEqual({
      short: "waiting",
      sentence: "Waiting for the run to end: it is compared with the baseline once it has",
      badge: "badge-queued",
    });
    expect(regressionWords("cannot_tell", "experiment", false).sentence).toMatch(/^Waiting for the experiment to end/);
  });

  it("keeps the verdict once it has ended", () => {
    expect(regressionWords("cannot_tell", "run", true)).toEqual({
      short: "cannot tell",
      sentence: "Cannot tell: nothing could be compared with the baseline",
      badge: "badge-cancelled",
    });
    expect(regressionWords("regressed", "experiment", true).short).toBe("regression");
  });
});

describe("regressionHeading", () => {
  it("names the name compared with", () => {
    expect(regressionHeading("checkout")).toBe("Compared with the baseline of \u201ccheckout\u201d");
  });
});
