import { describe, expect, it } from "vitest";
import {
  historyLines,
  compareLines,
  duration,
  engineRows,
  experimentLines,
  experimentProgressLine,
  recentRps,
  runProgressLine,
  runStepLine,
  statusLines,
  summaryLine,
  table,
} from "./format";

describe("duration", () => {
  it.each([
    [0, "0:00"],
    [14.9, "0:14"],
    [75, "1:15"],
    [3725, "1:02:05"],
    [-3, "0:00"],
  ])("%d s is %s", (s, text) => expect(duration(s)).toBe(text));
});

describe("recentRps", () => {
  it("is the mean of the latest seconds, whatever order they came in", () => {
    const samples = [10, 20, 30, 40, 50, 60, 70].map((requests, t) => ({ t, requests })).reverse();
    expect(recentRps(samples)).toBe(50);
    expect(recentRps(samples, 2)).toBe(65);
  });
  it("is null before the first second", () => expect(recentRps([])).toBeNull());
});

describe("progress", () => {
  const p = { id: "3f2b9c4e-8d1a-4c7e", status: "running", step: "running", stepDetail: "load 12 of 20 s", elapsedSeconds: 31, rps: 843.2 };

  it("is one line on a terminal: step, time waited, req/s so far", () => {
    expect(runProgressLine(p)).toBe("run 3f2b9c4e  running (load 12 of 20 s)  0:31  843 req/s");
    expect(runProgressLine({ ...p, step: "provisioning", stepDetail: null, rps: null })).toBe("run 3f2b9c4e  provisioning  0:31");
    expect(runProgressLine({ ...p, status: "queued", step: "queued", stepDetail: null, rps: null })).toBe("run 3f2b9c4e  queued  0:31");
  });

  it("is a line per step in a log", () => {
    expect(runStepLine({ ...p, step: "warmup", stepDetail: null })).toBe("[0:31] run 3f2b9c4e: warmup");
    expect(runStepLine({ ...p, status: "queued", step: "queued", stepDetail: null })).toBe("[0:31] run 3f2b9c4e: queued");
  });

  it("says which run of an experiment is running and the time left", () => {
    const e = { id: "e5a1b2c3-x", status: "running", total: 6, finished: 2, succeeded: 2, current: 3, secondsLeft: 95, elapsedSeconds: 40 };
    expect(experimentProgressLine(e)).toBe("experiment e5a1b2c3  running  run 3 of 6 (2 succeeded)  ~1:35 left  0:40");
  });
});

describe("tables", () => {
  it("pads every column but the last, without trailing spaces", () => {
    expect(
      table([
        ["A", "BB", "C"],
        ["aaa", "b", "c c"],
      ]),
    ).toEqual(["A    BB  C", "aaa  b   c c"]);
  });

  it("shows a run's whole-run figures in one line", () => {
    const s = { rps: 1234.4, requests: 61720, errors: 3, errorRate: 3 / 61720, latencyMs: { p50: 1.234, p95: 3.4, p99: 5, max: 41.2 } };
    expect(summaryLine(s)).toBe("1,234 req/s, p50 1.23 ms, p95 3.4 ms, p99 5 ms, max 41.2 ms, 3 errors (0.00486 %) of 61,720 requests");
  });

  it("shows the lab's status: host, queue, latest runs", () => {
    const r = (id: string, status: string, rps?: number) => ({
      id,
      name: `run ${id}`,
      status,
      step: status === "running" ? "warmup" : "done",
      createdAt: "2026-11-26T06:10:00.000Z",
      summary: rps === undefined ? null : { rps, latencyMs: { p95: 3.21 } },
    });
    const lines = statusLines({
      url: "http://127.0.0.1:3000",
      host: { cpus: 2, memoryBytes: 8 * 1024 ** 3, source: "docker" },
      running: [r("aaaaaaaa1", "running")],
      queued: [r("bbbbbbbb2", "queued")],
      latest: [r("aaaaaaaa1", "running"), r("cccccccc3", "succeeded", 1520)],
    });
    expect(lines.slice(0, 5)).toEqual([
      "lab http://127.0.0.1:3000",
      "host: 2 CPUs, 8.0 GiB (the worker's Docker engine)",
      "queue: 1 running, 1 queued",
      "  running aaaaaaaa run aaaaaaaa1 (warmup)",
      "  queued  bbbbbbbb run bbbbbbbb2",
    ]);
    expect(lines.slice(6)).toEqual([
      "latest runs:",
      "ID        NAME           STATUS           REQ/S  P95 MS  CREATED",
      "aaaaaaaa  run aaaaaaaa1  running: warmup                 2026-11-26 06:10:00",
      "cccccccc  run cccccccc3  succeeded        1,520  3.21    2026-11-26 06:10:00",
    ]);
  });
});

describe("compare", () => {
  const cell = (runId: string, value: number | null, ratio: number | null, verdict: string) => ({ runId, value, ratio, verdict });
  const side = (group: string, n: number, verdict: string, text: string) => ({
    group,
    n,
    baselineN: n,
    ratio: 1.5,
    ciLow: null,
    ciHigh: null,
    pValue: null,
    verdict,
    text,
  });

  it("shows each figure some run has, per run against the baseline, then the verdicts of sides with repetitions", () => {
    const lines = compareLines({
      runs: [{ id: "aaaaaaaa-1" }, { id: "bbbbbbbb-2" }] as never,
      baseline: "aaaaaaaa-1",
      figures: [
        {
          key: "lag",
          label: "Consumer lag",
          unit: "",
          better: "lower",
          cells: [cell("aaaaaaaa-1", null, null, "unknown"), cell("bbbbbbbb-2", null, null, "unknown")],
        },
        {
          key: "rps",
          label: "Throughput",
          unit: "req/s",
          better: "higher",
          cells: [cell("aaaaaaaa-1", 1000, 1, "baseline"), cell("bbbbbbbb-2", 1500, 1.5, "better")],
        },
      ] as never,
      groups: [
        { id: "A", label: "A: 1 replica", runIds: ["aaaaaaaa-1"], counted: ["aaaaaaaa-1"] },
        { id: "B", label: "B: 3 replicas", runIds: ["bbbbbbbb-2"], counted: ["bbbbbbbb-2"] },
        { id: "C", label: "C: 4 replicas", runIds: [], counted: [] },
      ],
      verdicts: [
        {
          key: "rps",
          label: "Throughput",
          unit: "req/s",
          better: "higher",
          comparisons: [side("B", 1, "cannot_tell", "+50% (one run a side)"), side("C", 3, "better", "+40.0 % (p=0.010)")],
        },
      ] as never,
      singleSides: ["A", "B"],
    });
    expect(lines.slice(0, 3)).toEqual([
      "FIGURE              aaaaaaaa (baseline)  bbbbbbbb",
      "Throughput (req/s)  1,000                1,500 ×1.50 better",
      "",
    ]);
    expect(lines).toContain("  Throughput: C: 4 replicas (3 vs 3 runs) +40.0 % (p=0.010)");
    expect(lines.join("\n")).not.toMatch(/one run a side|Consumer lag/);
    expect(lines.at(-1)).toMatch(/^sides with one run \(A, B\)/);
  });
});

describe("an experiment's variants", () => {
  it("shows mean ± sd of req/s and p95, and req/s against the baseline", () => {
    const d = (mean: number, sd: number) => ({ n: 3, mean, sd });
    const lines = experimentLines({
      baseline: "1 replica",
      variants: [
        { name: "1 replica", statistics: { runs: 3, noisy: [], metrics: { rps: d(585, 72), "latencyMs.p95": d(1.7, 0.1) } } },
        { name: "3 replicas", statistics: { runs: 3, noisy: [], metrics: { rps: d(1687, 63), "latencyMs.p95": d(0.6, 0.05) } } },
      ],
      comparisons: [{ variant: "3 replicas", metric: "rps", text: "+188% (p=0.003)" }],
    });
    expect(lines).toEqual([
      "VARIANT               RUNS  REQ/S       P95            REQ/S VS BASELINE",
      "1 replica (baseline)  3     585 ± 72    1.7 ± 0.1 ms",
      "3 replicas            3     1,687 ± 63  0.6 ± 0.05 ms  +188% (p=0.003)",
    ]);
  });
});

describe("historyLines", () => {
  const point = (id: string, over: Record<string, unknown> = {}) => ({
    id,
    createdAt: "2026-11-26T08:00:00.000Z",
    status: "succeeded" as const,
    baseline: false,
    baselineId: null,
    verdict: null,
    rps: null,
    p95: null,
    variants: null,
    ...over,
  });
  it("lists a name's runs oldest first with the baseline starred and each verdict", () => {
    const lines = historyLines({
      name: "nightly",
      kind: "run",
      points: [
        point("aaaaaaaa-1", { baseline: true, rps: 710.2, p95: 3.56 }),
        point("bbbbbbbb-2", { rps: 342, p95: 79.3, verdict: "regressed" }),
      ],
    });
    expect(lines[0]).toBe('runs named "nightly" (* the baseline)');
    expect(lines[2]).toMatch(/^\* +2026-11-26 08:00:00 +aaaaaaaa +succeeded +710 +3\.56 +—$/);
    expect(lines[3]).toMatch(/^ +2026-11-26 08:00:00 +bbbbbbbb +succeeded +342 +79\.3 +REGRESSED$/);
  });
  it("gives an experiment a line per variant", () => {
    const variant = (name: string, rps: number) => ({ variant: name, runs: 3, rps, p95: 2, rpsCi: null, p95Ci: null });
    const lines = historyLines({
      name: "e",
      kind: "experiment",
      points: [point("cccccccc-3", { verdict: "passed", variants: [variant("a", 100), variant("b", 200)] })],
    });
    expect(lines.slice(2).map((l) => l.replace(/ +/g, " ").trim())).toEqual([
      "2026-11-26 08:00:00 cccccccc succeeded a 100 2 passed",
      "b 200 2",
    ]);
  });
});

describe("engineRows", () => {
  it("one row per node, the engine named on its first; an unreachable engine with why", () => {
    const node = (name: string, role: "manager" | "worker") => ({
      name,
      role,
      cpus: 2,
      memoryBytes: 4 * 1024 ** 3,
      state: "ready",
      availability: "active",
      address: "10.0.0.2",
    });
    const lines = engineRows([
      {
        name: "local",
        kind: "docker",
        reachable: true,
        error: null,
        cpus: 2,
        memoryBytes: 4 * 1024 ** 3,
        nodes: [node("local", "manager")],
      },
      {
        name: "swarm-local",
        kind: "swarm",
        reachable: true,
        error: null,
        cpus: 4,
        memoryBytes: 8 * 1024 ** 3,
        nodes: [node("node1", "manager"), node("node2", "worker")],
      },
      { name: "far", kind: "swarm", reachable: false, error: "connect ECONNREFUSED", cpus: 0, memoryBytes: 0, nodes: [] },
    ]);
    expect(lines.map((l) => l.trimEnd().split(/\s{2,}/))).toEqual([
      ["ENGINE", "KIND", "NODE", "ROLE", "CPUS", "MEMORY", "STATE"],
      ["local", "docker", "local", "manager", "2", "4.0 GiB", "ready, active"],
      ["swarm-local", "swarm", "node1", "manager", "2", "4.0 GiB", "ready, active"],
      ["", "node2", "worker", "2", "4.0 GiB", "ready, active"],
      ["far", "swarm", "-", "-", "-", "-", "unreachable: connect ECONNREFUSED"],
    ]);
  });
});
