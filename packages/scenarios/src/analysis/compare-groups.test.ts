import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TRunSummary, ZRunSummary } from "../contract/results";
import { ZRunCreate } from "../contract/run";
import { applyPatch, expandExperiment, ZExperimentCreate } from "../experiments/experiments";
import {
  canonicalJson,
  compareSides,
  definitionOf,
  definitionPatch,
  GroupableRun,
  groupRuns,
  groupVerdicts,
  reasonRows,
  repeatExperiment,
  signedPercent,
} from "./compare-groups";
import { runFindings } from "./findings";

const definition = (replicas: number, extra: Record<string, unknown> = {}) =>
  ZRunCreate.parse({
    topology: { service: { replicas, memoryMb: 128 } },
    workload: { endpoint: "hostname", vus: 2, durationSeconds: 6 },
    ...extra,
  });

const summary = (rps: number, p95: number, errors = 0): TRunSummary => ({
  requests: rps * 10,
  rps,
  errors,
  errorRate: errors / (rps * 10),
  latencyMs: { avg: p95 / 2, p50: p95 / 3, p90: p95 * 0.9, p95, p99: p95 * 1.5, max: p95 * 4 },
});

let seq = 0;
const run = (def: ReturnType<typeof definition>, s: TRunSummary | null, more: Partial<GroupableRun> = {}): GroupableRun => ({
  id: `run-${++seq}`,
  name: null,
  status: s ? "succeeded" : "failed",
  topology: def.topology,
  workload: def.workload,
  faults: def.faults,
  summary: s,
  findings: [],
  ...more,
});

describe("groupRuns", () => {
  it("puts runs of one definition on one side, whatever the key order and the faults' actual times", () => {
    const one = definition(1, { faults: [{ at: 2, action: "stop", target: { role: "app", index: 0 } }] });
    const reordered = { ...one, workload: Object.fromEntries(Object.entries(one.workload).reverse()) } as typeof one;
    const applied = { ...one, faults: [{ ...one.faults[0]!, actual: { atMs: 2003, lagMs: 3, tookMs: 40 } }] } as unknown as typeof one;
    const runs = [
      run(one, summary(100, 10), { name: "one" }),
      run(definition(2), summary(180, 8), { name: "two" }),
      run(reordered, summary(104, 10), { name: "one" }),
      run(applied, null, { name: "one" }),
    ];
    const groups = groupRuns(runs);
    expect(groups).toEqual([
      { id: "A", label: "one", runIds: [runs[0]!.id, runs[2]!.id, runs[3]!.id], counted: [runs[0]!.id, runs[2]!.id] },
      { id: "B", label: "two", runIds: [runs[1]!.id], counted: [runs[1]!.id] },
    ]);
  });

  it("names a side by its runs' name, or the first run's when they differ, or by id when unnamed", () => {
    const runs = [run(definition(1), null, { name: "x" }), run(definition(1), null, { name: "y" }), run(definition(3), null)];
    expect(groupRuns(runs).map((g) => g.label)).toEqual(["x", `run ${runs[2]!.id.slice(0, 8)}`]);
  });
});

describe("compareSides", () => {
  it("calls a significant difference of 3 runs a side better or worse by the figure's direction, with its CI and p", () => {
    const c = compareSides([100, 104, 98], [150, 155, 149], "higher");
    expect(c.verdict).toBe("better");
    expect(c.ratio).toBeCloseTo(1.5, 1);
    expect(c.ciLow!).toBeGreaterThan(1);
    expect(c.pValue!).toBeLessThan(0.05);
    expect(c.text).toMatch(/^\+50\.\d % \(95 % CI \+\d+\.\d % to \+\d+\.\d %, p [=<] 0\.\d+\)$/);
    expect(compareSides([100, 104, 98], [150, 155, 149], "lower").verdict).toBe("worse");
  });

  it("says not distinguishable when the sides overlap, with an interval that includes no change", () => {
    const c = compareSides([100, 130, 80], [110, 90, 125], "higher");
    expect(c.verdict).toBe("not_distinguishable");
    expect(c.ciLow!).toBeLessThan(1);
    expect(c.ciHigh!).toBeGreaterThan(1);
  });

  it("with one run per side gives the difference but no verdict: it cannot tell it from noise", () => {
    const c = compareSides([100], [112], "higher");
    expect(c).toMatchObject({ verdict: "cannot_tell", pValue: null, ciLow: null, n: 1, baselineN: 1 });
    expect(c.ratio).toBeCloseTo(1.12);
    expect(c.text).toBe("differs by +12.0 %: one run per side cannot tell a difference from noise");
    expect(compareSides([100, 101, 99], [50], "higher").text).toBe(
      "differs by \u221250.0 %: one run on this side cannot tell a difference from noise",
    );
  });

  it("takes equal values in every run as equal (0 errors), and refuses a ratio against 0", () => {
    expect(compareSides([0, 0], [0, 0], "lower")).toMatchObject({ verdict: "not_distinguishable", ratio: 1, text: "equal in every run" });
    expect(compareSides([0], [0], "lower")).toMatchObject({ verdict: "cannot_tell", ratio: 1 });
    expect(compareSides([0, 0], [5, 7], "lower")).toMatchObject({
      verdict: "unknown",
      ratio: null,
      text: "not compared as a ratio: a run has 0",
    });
    expect(compareSides([], [5], "lower")).toMatchObject({ verdict: "unknown", text: "no value on the baseline's side" });
  });
});

describe("groupVerdicts", () => {
  const slow = [summary(100, 20), summary(104, 21), summary(97, 19.5)].map((s) => run(definition(1), s, { name: "1 replica" }));
  const fast = [summary(180, 11), summary(176, 10.5), summary(185, 11.2)].map((s) => run(definition(2), s, { name: "2 replicas" }));
  const runs = [...slow, ...fast];
  const groups = groupRuns(runs);
  const verdict = (baseline: string, key: string) =>
    groupVerdicts(runs, groups, baseline)
      .find((r) => r.key === key)!
      .comparisons.map((c) => c.verdict);

  it("compares every other side with the baseline run's side, one verdict per scored figure", () => {
    expect(verdict(slow[0]!.id, "rps")).toEqual(["better"]);
    expect(verdict(slow[0]!.id, "latency.p95")).toEqual(["better"]);
    expect(verdict(slow[0]!.id, "errors")).toEqual(["not_distinguishable"]);
    const keys = groupVerdicts(runs, groups, slow[0]!.id).map((r) => r.key);
    expect(keys).toContain("rps");
    expect(keys).not.toContain("app.cpu");
  });

  it("turns around when the baseline is a run of the other side", () => {
    expect(verdict(fast[1]!.id, "rps")).toEqual(["worse"]);
    expect(groupVerdicts(runs, groups, fast[1]!.id)[0]!.comparisons[0]!.group).toBe("A");
  });
});

describe("reasonRows", () => {
  const DIR = new URL("./fixtures/findings/", import.meta.url);
  const recorded = (name: string) => {
    const raw = JSON.parse(readFileSync(new URL(`${name}.json`, DIR), "utf8")) as { hostCpus: number; summary: unknown };
    const s = ZRunSummary.parse(raw.summary);
    return { summary: s, findings: runFindings({ summary: s, hostCpus: raw.hostCpus }) };
  };

  it("aligns the recorded runs' findings by code and flags one that only one side has (experiment 1: 1 vs 4 replicas)", () => {
    const one = recorded("exp1--1-replica");
    const four = recorded("exp1--4-replicas");
    const runs = [
      run(definition(1), one.summary, { findings: one.findings }),
      run(definition(4), four.summary, { findings: four.findings }),
    ];
    const rows = reasonRows(runs, groupRuns(runs));
    const saturated = rows.find((r) => r.code === "host_cpu_saturated")!;
    expect(saturated.cells[0]).toBeNull();
    expect(saturated.cells[1]).toMatchObject({
      level: expect.any(String),
      message: expect.stringMatching(/^The host's 2 cores were saturated/),
    });
    expect(saturated.differs).toBe(true);
    expect(rows.map((r) => r.code)).toEqual([...new Set([...one.findings, ...four.findings].map((f) => f.code))]);
  });

  it("does not flag a finding every side holds", () => {
    const f = { code: "errors", level: "warn" as const, message: "m", evidence: {} };
    const runs = [run(definition(1), null, { findings: [f] }), run(definition(2), null, { findings: [f] })];
    expect(reasonRows(runs, groupRuns(runs))).toEqual([
      { code: "errors", cells: [f, f].map(({ level, message }) => ({ level, message })), differs: false },
    ]);
  });
});

describe("definitionPatch", () => {
  it("patches only what differs, and null removes what the target lacks, so the merge gives the target back", () => {
    const from = { topology: { service: { replicas: 1, cpus: 0.5 }, balancer: { kind: "nginx" } }, workload: { vus: 2 }, faults: [1] };
    const to = { topology: { service: { replicas: 3 }, balancer: { kind: "nginx" } }, workload: { vus: 2 }, faults: [] };
    const patch = definitionPatch(from, to);
    expect(patch).toEqual({ topology: { service: { replicas: 3, cpus: null } }, faults: [] });
    expect(canonicalJson(applyPatch(from, patch))).toBe(canonicalJson(to));
  });
});

describe("repeatExperiment", () => {
  it("is an experiment the lab accepts whose variants run exactly the compared sides' definitions, the baseline's first", () => {
    const a = definition(1);
    const b = definition(3, { topology: { service: { replicas: 3, memoryMb: 128, cpus: 0.5 } } });
    const runs = [run(a, summary(100, 10), { name: "one" }), run(b, summary(200, 5), { name: "three" })];
    const groups = groupRuns(runs);
    const repeat = repeatExperiment(runs, groups, runs[1]!.id);
    expect(repeat).toMatchObject({ name: "Repeat: three vs one", repetitions: 3, baseline: "B: three" });
    expect(repeat.variants.map((v) => v.name)).toEqual(["B: three", "A: one"]);
    const expansion = expandExperiment(ZExperimentCreate.parse(repeat));
    if (!expansion.ok) throw new Error(JSON.stringify(expansion.issues));
    expect(expansion.baseline).toBe(0);
    expect(expansion.variants.map((v) => canonicalJson(definitionOf(v.run)))).toEqual([b, a].map((d) => canonicalJson(definitionOf(d))));
  });
});

describe("signedPercent", () => {
  it("signs the change and drops the sign of a change that rounds to 0", () => {
    expect([1.123, 0.6, 0.99999, 2.66].map(signedPercent)).toEqual(["+12.3 %", "\u221240.0 %", "+0.0 %", "+166 %"]);
  });
});
