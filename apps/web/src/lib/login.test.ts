import { describe, expect, it } from "vitest";
import { safeNext } from "./login";

describe("safeNext: where /login returns to", () => {
  it("keeps a path of the lab, with its query", () => {
    expect(safeNext("/runs/x?y=1")).toBe("/runs/x?y=1");
    expect(safeNext("/tokens")).toBe("/tokens");
    expect(safeNext("/runs/a#charts")).toBe("/runs/a#charts");
  });

  it("never leaves the lab's origin", () => {
    // What /login?next=/%09/evil.com hands over once its query is decoded.
    const decoded = new URLSearchParams("next=/%09/evil.com").get("next");
    for (const bad of ["/\t/evil.com", decoded, "//evil.com", "/\\evil.com", "https://evil.com", "/\n/evil.com", "/\r\n/evil.com"]) {
      expect(safeNext(bad), JSON.stringify(bad)).toBe("/");
    }
  });

  it("refuses control characters, relative paths and nothing", () => {
    expect(safeNext("/runs\u0000")).toBe("/");
    expect(safeNext("/runs\u007f")).toBe("/");
    expect(safeNext("runs")).toBe("/");
    expect(safeNext("")).toBe("/");
    expect(safeNext(null)).toBe("/");
    expect(safeNext(undefined)).toBe("/");
  });
});
