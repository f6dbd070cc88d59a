import { ZRunCreate } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { EXPERIMENT_TARGET, RUN_TARGET } from "./commands/submit";
import { UsageError } from "./errors";
import { applyAssignments, parseAssignment, parseValue } from "./set";

const run = () => ({
  name: "3 replicas",
  topology: { service: { replicas: 1, cpus: 0.2 } },
  workload: { endpoint: "cpu", vus: 3, durationSeconds: 20 },
});

const set = (doc: Record<string, unknown>, ...texts: string[]) => {
  applyAssignments(doc, texts.map(parseAssignment), RUN_TARGET);
  return doc;
};
const usage = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error("no usage error");
};

describe("--set values", () => {
  it.each([
    ["3", 3],
    ["0.25", 0.25],
    ["true", true],
    ["null", null],
    ["[1,2]", [1, 2]],
    ['{"a":"b"}', { a: "b" }],
    ['"3"', "3"],
    ["round_robin", "round_robin"],
    ["", ""],
    ["p95<250", "p95<250"],
    ["a=b", "a=b"],
  ])("%s is %j (JSON when it parses as JSON, else the text)", (raw, value) => {
    expect(parseValue(raw)).toEqual(value);
  });

  it("splits at the first =, so a value may hold one", () => {
    expect(parseAssignment("name=a=b")).toEqual({ text: "name=a=b", path: ["name"], value: "a=b" });
  });
});

describe("--set paths", () => {
  it("sets a nested field of the file and keeps the rest", () => {
    const doc = set(run(), "topology.service.replicas=3", "workload.loadgen=wrk");
    expect(doc.topology).toEqual({ service: { replicas: 3, cpus: 0.2 } });
    expect(doc.workload).toMatchObject({ loadgen: "wrk", vus: 3 });
    expect(ZRunCreate.safeParse(set(run(), "topology.service.replicas=3")).success).toBe(true);
  });

  it("creates the objects on the way (a slot the file does not have)", () => {
    expect(set(run(), "topology.balancer.kind=haproxy").topology).toMatchObject({ balancer: { kind: "haproxy" } });
  });

  it("sets into a list by index, and may add one entry at its end", () => {
    const doc = set(run(), 'faults=[{"at":5,"action":"stop","target":{"role":"app","index":0}}]', "faults.0.at=6");
    expect((doc.faults as { at: number }[])[0]!.at).toBe(6);
    expect(usage(() => set(run(), "faults.2.at=1"))).toMatch(/faults has 0 entries; the next is 0/);
  });

  it("refuses an unknown top-level key, naming it and the fields there are", () => {
    expect(usage(() => set(run(), "naem=x"))).toMatch(
      /^--set naem: naem is not a field of a run \(fields: name, engine, topology, workload, faults/,
    );
  });

  it("refuses an unknown field deeper down, naming where", () => {
    expect(usage(() => set(run(), "topology.service.replica=3"))).toMatch(
      /^--set topology\.service\.replica: topology\.service has no field replica \(fields: .*replicas/,
    );
  });

  it("refuses a path through a single value", () => {
    expect(usage(() => set(run(), "name.first=x"))).toMatch(/name is a single value, not an object or a list/);
    expect(usage(() => set(run(), "topology.service.replicas.0=1"))).toMatch(/topology\.service\.replicas is a single value/);
  });

  it("refuses a path through what the file holds as a value", () => {
    const doc = { ...run(), topology: { service: "x" } } as Record<string, unknown>;
    expect(usage(() => set(doc, "topology.service.replicas=3"))).toMatch(/topology\.service is "x" in the file/);
  });

  it.each(["", "=3", ".a=1", "a..b=1", "topology.__proto__.x=1", "constructor=1", "a b=1", "noequals"])("refuses %j as a path", (text) => {
    expect(usage(() => parseAssignment(text))).toMatch(/^--set /);
  });

  it("reads an experiment's base as a run, and leaves a variant's patch open", () => {
    const doc: Record<string, unknown> = { name: "e", base: run(), variants: [{ name: "a", patch: {} }] };
    applyAssignments(
      doc,
      ["base.topology.service.replicas=2", "variants.0.patch.anything=1", "repetitions=1"].map(parseAssignment),
      EXPERIMENT_TARGET,
    );
    expect(doc).toMatchObject({ base: { topology: { service: { replicas: 2 } } }, variants: [{ patch: { anything: 1 } }], repetitions: 1 });
    expect(usage(() => applyAssignments(doc, [parseAssignment("base.topology.servic.replicas=1")], EXPERIMENT_TARGET))).toMatch(
      /base\.topology has no field servic/,
    );
    expect(usage(() => applyAssignments(doc, [parseAssignment("bases=1")], EXPERIMENT_TARGET))).toMatch(
      /bases is not a field of an experiment/,
    );
  });

  it("checks every path before changing anything", () => {
    const doc = run();
    usage(() => set(doc, "topology.service.replicas=5", "nope=1"));
    expect(doc.topology.service.replicas).toBe(1);
  });
});
