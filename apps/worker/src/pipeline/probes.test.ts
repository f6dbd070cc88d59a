import { describe, expect, it } from "vitest";
import { errorLine, noAnswer, pollDelay } from "./probes";

describe("pollDelay", () => {
  it("polls fast right after a start, then four times a second", () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(pollDelay)).toEqual([25, 50, 100, 200, 250, 250, 250]);
  });
});

describe("errorLine", () => {
  const statement = { text: "INSERT INTO orders (id)\n  SELECT id\n  FROM nope", line: 7 };
  it("turns Postgres's position in the statement into the script's line", () => {
    expect(errorLine({ position: String(statement.text.indexOf("nope") + 1) }, statement)).toBe(" (line 9)");
    expect(errorLine({ position: "1" }, statement)).toBe(" (line 7)");
  });
  it("says nothing without a position (Cassandra, an error at run time)", () => {
    expect(errorLine(new Error("unconfigured table nope"), statement)).toBe("");
  });
});

describe("noAnswer", () => {
  it("names the cause that fetch's own message hides", () => {
    const refused = Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED", message: "connect ECONNREFUSED" } });
    expect(noAnswer(refused)).toBe("no answer: ECONNREFUSED");
    expect(noAnswer(new DOMException("timed out", "TimeoutError"))).toBe("no answer within 5 s");
  });
});
