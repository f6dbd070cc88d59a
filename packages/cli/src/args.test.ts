import { describe, expect, it } from "vitest";
import { parseCommand } from "./args";
import { UsageError } from "./errors";

const usage = (argv: string[]) => {
  try {
    parseCommand(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`no usage error for ${argv.join(" ")}`);
};

describe("parseCommand", () => {
  it("reads a run with its changes, thresholds, name and flags", () => {
    const cmd = parseCommand([
      "run",
      "run.json",
      "--set",
      "topology.service.replicas=3",
      "--set=workload.vus=8",
      "--threshold",
      "p95<250",
      "--threshold",
      "rps >= 1000",
      "--name",
      "ci",
      "--wait",
      "--json",
      "--url",
      "http://lab:3000",
    ]);
    expect(cmd).toEqual({
      name: "run",
      url: "http://lab:3000",
      json: true,
      file: "run.json",
      sets: [
        { text: "topology.service.replicas=3", path: ["topology", "service", "replicas"], value: 3 },
        { text: "workload.vus=8", path: ["workload", "vus"], value: 8 },
      ],
      thresholds: [
        { metric: "p95", op: "<", value: 250 },
        { metric: "rps", op: ">=", value: 1000 },
      ],
      setName: "ci",
      wait: true,
      markBaseline: false,
    });
  });

  it("leaves out what was not given", () => {
    expect(parseCommand(["experiment", "e.json"])).toEqual({
      name: "experiment",
      url: undefined,
      json: false,
      file: "e.json",
      sets: [],
      thresholds: [],
      wait: false,
      markBaseline: false,
    });
  });

  it.each([
    [["run"], /missing <file\.json>/],
    [["run", "a.json", "b.json"], /unexpected argument b\.json/],
    [["run", "a.json", "--wiat"], /Unknown option '--wiat'/],
    [["run", "a.json", "--threshold", "p95<<250"], /^--threshold "p95<<250": /],
    [["run", "a.json", "--threshold", "p100<1"], /metric must be one of: rps, p50/],
    [["run", "a.json", "--threshold", "errorRate<2"], /fraction/],
    [["run", "a.json", "--set", "replicas"], /--set path=value/],
    [["launch"], /unknown command launch/],
    [["preset"], /preset needs list or run/],
    [["preset", "run"], /missing the preset's name/],
    [["preset", "run", "x", "--repetitions", "two"], /--repetitions two: a whole number/],
    [["compare", "a"], /at least two ids/],
    [["compare", "a", "b", "--baseline", "c"], /--baseline c is not one of the ids/],
    [["export", "a", "-o", "x"], /--format must be one of: csv, json, html/],
    [["export", "a", "--format", "pdf", "-o", "x"], /got pdf/],
    [["export", "a", "--format", "csv"], /-o <file> is required/],
    [["export", "a", "--format", "json", "--table", "runs", "-o", "x"], /--table is for --format csv/],
    [["images", "push", "dir"], /--tag <name:tag> is required/],
    [["images", "build", "dir"], /unknown: images build/],
    [["status", "extra"], /unexpected argument extra/],
    [["cancel"], /missing the run's or experiment's id/],
  ])("%j is a usage error: %s", (argv, message) => {
    expect(usage(argv)).toMatch(message);
  });

  it("says how the command is written after what is wrong", () => {
    expect(usage(["run"])).toContain("usage: scalelab run <file.json>");
  });

  it("reads the other commands", () => {
    expect(parseCommand(["preset", "list", "--json"])).toEqual({ name: "preset-list", url: undefined, json: true });
    expect(
      parseCommand(["preset", "run", "cpu-limit-replicas", "--set", "workload.durationSeconds=5", "--repetitions", "1", "--wait"]),
    ).toMatchObject({
      name: "preset-run",
      preset: "cpu-limit-replicas",
      repetitions: 1,
      wait: true,
      sets: [{ path: ["workload", "durationSeconds"], value: 5 }],
    });
    expect(parseCommand(["compare", "a", "b", "c", "--baseline", "b"])).toMatchObject({ ids: ["a", "b", "c"], baseline: "b" });
    expect(parseCommand(["export", "x", "--format", "csv", "--table", "samples", "-o", "out.csv"])).toMatchObject({
      name: "export",
      id: "x",
      format: "csv",
      table: "samples",
      out: "out.csv",
    });
    expect(parseCommand(["images", "push", "./app", "--tag", "orders:1"])).toMatchObject({
      name: "images-push",
      dir: "./app",
      tag: "orders:1",
    });
    expect(parseCommand(["status"])).toMatchObject({ name: "status" });
    expect(parseCommand(["engines", "--json"])).toMatchObject({ name: "engines", json: true });
    expect(() => parseCommand(["engines", "extra"])).toThrow(UsageError);
    expect(parseCommand(["cancel", "abc", "--json"])).toMatchObject({ name: "cancel", id: "abc", json: true });
  });

  it("answers help with no command, help, --help, -h or a command's --help", () => {
    for (const argv of [[], ["help"], ["--help"], ["-h"], ["run", "--help"], ["export", "-h"]]) {
      expect(parseCommand(argv).name).toBe("help");
    }
  });

  it("reads baseline set|clear, history with its kind and limit, and --mark-baseline (which waits)", () => {
    expect(parseCommand(["baseline", "set", "abc"])).toEqual({ name: "baseline", url: undefined, json: false, action: "set", id: "abc" });
    expect(parseCommand(["baseline", "clear", "abc", "--json"])).toMatchObject({ action: "clear", json: true });
    expect(usage(["baseline", "mark", "abc"])).toMatch(
      /^unknown: baseline mark; use set or clear\nusage: scalelab baseline set\|clear <id>/,
    );
    expect(usage(["baseline", "set"])).toMatch(/^missing the run's or experiment's id/);
    expect(parseCommand(["history", "nightly"])).toEqual({ name: "history", url: undefined, json: false, nameOf: "nightly", kind: "run" });
    expect(parseCommand(["history", "nightly", "--kind", "experiment", "--limit", "20"])).toMatchObject({ kind: "experiment", limit: 20 });
    expect(usage(["history", "nightly", "--kind", "runs"])).toMatch(/^--kind must be run or experiment; got runs/);
    expect(usage(["history", "nightly", "--limit", "-1"])).toMatch(/--limit/);
    expect(parseCommand(["run", "r.json", "--mark-baseline"])).toMatchObject({ wait: true, markBaseline: true });
    expect(parseCommand(["preset", "run", "cpu-limit-replicas", "--mark-baseline"])).toMatchObject({ wait: true, markBaseline: true });
  });
});
