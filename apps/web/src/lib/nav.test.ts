import { describe, expect, it } from "vitest";
import { currentNavItem } from "./nav";

describe("currentNavItem", () => {
  it("marks the page's own link, the most specific one", () => {
    expect(currentNavItem("/")).toBe("/");
    expect(currentNavItem("/runs")).toBe("/runs");
    expect(currentNavItem("/runs/new")).toBe("/runs/new");
    expect(currentNavItem("/runs/0b5c2f6e-1d2a-4c3b-9e8f-7a6b5c4d3e2f")).toBe("/runs");
    expect(currentNavItem("/experiments/new")).toBe("/experiments");
    expect(currentNavItem("/reference")).toBe("/reference");
  });

  it("marks none where no link leads", () => {
    expect(currentNavItem("/compare")).toBeUndefined();
    expect(currentNavItem("/runsx")).toBeUndefined();
    expect(currentNavItem(null)).toBeUndefined();
  });
});
