import { describe, expect, it } from "vitest";
import { ImageProgress } from "@scalelab/images";
import { progressDetail } from "./prepare-images";

describe("progressDetail", () => {
  it.each<[ImageProgress, string]>([
    [
      { image: "k6", phase: "building", step: 3, totalSteps: 5, message: "Step 3/5 : COPY k6 /usr/bin/k6" },
      "building scalelab/k6 (step 3/5)",
    ],
    [{ image: "k6", phase: "building", message: "Sending build context" }, "building scalelab/k6"],
    [{ image: "testbed", phase: "cached", message: "" }, "scalelab/testbed is up to date"],
    [{ image: "k6", phase: "compiling", message: "go install go.k6.io/k6@v1.4.2" }, "compiling scalelab/k6"],
    [{ image: "base", phase: "bootstrapping", message: "debootstrap" }, "bootstrapping scalelab/base"],
  ])("%j → %s", (p, text) => {
    expect(progressDetail(p)).toBe(text);
  });
});
