import { describe, expect, it } from "vitest";
import { pollDelay } from "./probes";

describe("pollDelay", () => {
  it("polls fast right after a start, then four times a second", () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(pollDelay)).toEqual([25, 50, 100, 200, 250, 250, 250]);
  });
});
