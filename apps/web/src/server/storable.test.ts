import { describe, expect, it } from "vitest";
import { unstorableText } from "./storable";

describe("unstorableText", () => {
  it("names every string field with a NUL byte by its full path", () => {
    expect(
      unstorableText({ name: "a\u0000b", topology: { service: { image: "x" } }, ids: ["ok", "\u0000"], n: 5, t: true, z: null }),
    ).toEqual([
      { path: "name", message: "name must not contain NUL bytes" },
      { path: "ids.1", message: "ids.1 must not contain NUL bytes" },
    ]);
  });

  it("names a field name with a NUL byte, escaped", () => {
    expect(unstorableText({ topology: { "ev\u0000il": 1 } })).toEqual([
      { path: "topology.ev\\u0000il", message: 'the field name "ev\\u0000il" must not contain NUL bytes' },
    ]);
  });

  it("refuses unpaired surrogates, which are not UTF-8, and keeps paired ones", () => {
    expect(unstorableText({ name: "\uD83D" })).toEqual([
      { path: "name", message: "name must be valid Unicode (it contains an unpaired surrogate)" },
    ]);
    expect(unstorableText({ name: "\uDE00x" })).toHaveLength(1);
    expect(unstorableText({ name: "🙂 ünïcødé" })).toEqual([]);
  });

  it("reports a bare string as the input and accepts anything without strings", () => {
    expect(unstorableText("\u0000")).toEqual([{ path: "", message: "the input must not contain NUL bytes" }]);
    expect(unstorableText(undefined)).toEqual([]);
    expect(unstorableText(42)).toEqual([]);
  });

  it("walks deeply nested input without recursion", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const issues = unstorableText(deep);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path.split(".")).toHaveLength(100_000);
  });
});
