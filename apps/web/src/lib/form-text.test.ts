import { describe, expect, it } from "vitest";
import { parseCommand, parseEnv, parseHeaders, parseThresholds } from "./form-text";

describe("parseEnv", () => {
  it("reads NAME=value lines with their line numbers, skipping blank lines and comments", () => {
    expect(parseEnv("LOG_LEVEL=info\n\n# a comment\n  WORKERS = 2\nEMPTY=\nURL=postgres://a/b?x=1")).toEqual({
      value: { LOG_LEVEL: "info", WORKERS: " 2", EMPTY: "", URL: "postgres://a/b?x=1" },
      lines: { LOG_LEVEL: 1, WORKERS: 4, EMPTY: 5, URL: 6 },
      issues: [],
    });
    expect(parseEnv("A=1\r\nB=2\r\n")).toMatchObject({ value: { A: "1", B: "2" }, issues: [] });
    expect(parseEnv("")).toEqual({ value: {}, lines: {}, issues: [] });
  });

  it("names a line that is not NAME=value, and a name set twice", () => {
    expect(parseEnv("A=1\nB=2\njust words\n=x\nA=3").issues).toEqual([
      "Environment, line 3: NAME=value expected",
      "Environment, line 4: NAME=value expected",
      "Environment, line 5: A is already set on line 1",
    ]);
  });

  it("leaves a name's form to the schema", () => {
    expect(parseEnv("bad-name=1")).toEqual({ value: { "bad-name": "1" }, lines: { "bad-name": 1 }, issues: [] });
  });
});

describe("parseCommand", () => {
  it("reads one argv item per line, trimmed, blank lines skipped, with each item's line", () => {
    expect(parseCommand("gunicorn\n  --bind=0.0.0.0:8080\n\napp:app\n")).toEqual({
      value: ["gunicorn", "--bind=0.0.0.0:8080", "app:app"],
      lines: { 0: 1, 1: 2, 2: 4 },
      issues: [],
    });
    expect(parseCommand("\n  \n").value).toEqual([]);
  });

  it("keeps an argument with spaces but names a program line with them (there is no shell)", () => {
    expect(parseCommand("python\n-c\nprint('a b')").issues).toEqual([]);
    expect(parseCommand("\ngunicorn -w 4 app:app").issues).toEqual([
      'Command, line 2: one argv item per line, no shell: put "gunicorn" and each of its arguments on a line of its own',
    ]);
  });
});

describe("parseHeaders", () => {
  it("reads Name: value lines, trimmed, with their lines", () => {
    expect(parseHeaders("Content-Type: application/json\nX-Token:abc: def \n\n# note")).toEqual({
      value: { "Content-Type": "application/json", "X-Token": "abc: def" },
      lines: { "Content-Type": 1, "X-Token": 2 },
      issues: [],
    });
  });

  it("names a line without a name and a colon, and a header given twice in any case", () => {
    expect(parseHeaders("Accept: */*\nno colon here\n: v\naccept: text/html").issues).toEqual([
      "Headers, line 2: Name: value expected",
      "Headers, line 3: Name: value expected",
      "Headers, line 4: accept is already set on line 1",
    ]);
  });
});

describe("parseThresholds", () => {
  it("reads one threshold per line with its line, skipping blank lines and comments, and names a line it cannot read", () => {
    expect(parseThresholds("p95<250\n\n# errors\nerrorRate < 1%")).toEqual({
      value: [
        { metric: "p95", op: "<", value: 250 },
        { metric: "errorRate", op: "<", value: 0.01 },
      ],
      lines: { 0: 1, 1: 4 },
      issues: [],
    });
    expect(parseThresholds("rps>=10\np95 fast").issues).toEqual([
      'Thresholds, line 2: "p95 fast": no operator after p95: op must be one of: < <= > >= (e.g. p95<250, rps>=1000, errorRate<0.01)',
    ]);
  });
});
