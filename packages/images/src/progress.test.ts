import { describe, expect, it } from "vitest";
import { parseBuildStep } from "./progress";

describe("parseBuildStep", () => {
  it("reads step, total and instruction from the classic builder's step line", () => {
    expect(parseBuildStep("Step 3/7 : RUN apt-get update")).toEqual({ step: 3, totalSteps: 7, instruction: "RUN apt-get update" });
    expect(parseBuildStep('Step 12/12 : CMD ["postgres"]\n')).toEqual({ step: 12, totalSteps: 12, instruction: 'CMD ["postgres"]' });
  });

  it("ignores every other line", () => {
    for (const line of [" ---> Running in 1a2b3c", "Successfully built 123", "Get:1 http://deb.debian.org Step 1/2 : x", ""]) {
      expect(parseBuildStep(line)).toBeUndefined();
    }
  });
});
