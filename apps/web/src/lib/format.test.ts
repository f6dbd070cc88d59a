import { describe, expect, it } from "vitest";
import { loadLabel } from "./format";

describe("loadLabel", () => {
  it("names the load by its model and generator", () => {
    expect(loadLabel({ loadgen: "k6", vus: 4 })).toBe("4 VUs");
    expect(loadLabel({ loadgen: "k6", arrivalRate: 8 })).toBe("8 req/s");
    expect(loadLabel({ loadgen: "wrk", connections: 64 })).toBe("wrk · 64 connections");
  });
});
