import { describe, expect, it } from "vitest";
import {
  applyPatch,
  comparisonThresholdsOf,
  estimateSeconds,
  EXPERIMENT_LIMITS,
  expandExperiment,
  experimentRecords,
  runCount,
  runOrder,
  RUN_OVERHEAD_SECONDS,
  ZExperimentCreate,
  ZVariantDef,
  TExperimentCreateInput,
} from "./experiments";
import { fieldInfo } from "../contract/form";

const base = {
  topology: { service: { replicas: 1, cpus: 0.2 } },
  workload: { vus: 2, durationSeconds: 10 },
};

const expand = (input: TExperimentCreateInput) => {
  const parsed = ZExperimentCreate.safeParse(input);
  if (!parsed.success) throw new Error(parsed.error.message);
  return expandExperiment(parsed.data);
};

const issuesOf = (input: TExperimentCreateInput) => {
  const out = expand(input);
  if (out.ok) throw new Error("expected issues");
  return out.issues;
};

describe("applyPatch", () => {
  it("merges objects field by field, replaces arrays and scalars, and null removes a field", () => {
    const merged = applyPatch(
      { topology: { service: { replicas: 1, cpus: 0.2 } }, workload: { vus: 2 }, faults: [{ at: 1 }] },
      { topology: { service: { replicas: 4 } }, workload: { vus: null, arrivalRate: 8 }, faults: [] },
    );
    expect(merged).toEqual({ topology: { service: { replicas: 4, cpus: 0.2 } }, workload: { arrivalRate: 8 }, faults: [] });
  });

  it("leaves the base untouched", () => {
    const b = { topology: { service: { replicas: 1 } } };
    applyPatch(b, { topology: { service: { replicas: 3 } } });
    expect(b.topology.service.replicas).toBe(1);
  });
});

describe("expandExperiment", () => {
  it("a variant per patch, each validated as a whole run with the defaults filled in", () => {
    const out = expand({
      name: "replicas",
      base,
      variants: [
        { name: "1", patch: {} },
        { name: "3", patch: { topology: { service: { replicas: 3 } } } },
      ],
    });
    if (!out.ok) throw new Error(JSON.stringify(out.issues));
    expect(out.variants.map((v) => [v.name, v.run.topology.service.replicas, v.run.topology.service.cpus])).toEqual([
      ["1", 1, 0.2],
      ["3", 3, 0.2],
    ]);
    expect(out.variants[1]!.run.name).toBe("replicas · 3");
    expect(out.runs).toBe(6);
    expect(out.baseline).toBe(0);
  });

  it("sweep axes multiply into a grid, the first axis varying slowest, each named by its values", () => {
    const out = expand({
      name: "grid",
      base,
      sweep: [
        { field: "topology.service.replicas", values: [1, 2, 4] },
        { field: "workload.vus", values: [4, 8] },
      ],
      repetitions: 2,
    });
    if (!out.ok) throw new Error(JSON.stringify(out.issues));
    expect(out.variants.map((v) => v.name)).toEqual([
      "replicas=1 · vus=4",
      "replicas=1 · vus=8",
      "replicas=2 · vus=4",
      "replicas=2 · vus=8",
      "replicas=4 · vus=4",
      "replicas=4 · vus=8",
    ]);
    expect(out.variants[3]!.run.topology.service.replicas).toBe(2);
    expect(out.variants[3]!.run.workload.vus).toBe(8);
    expect(out.variants[3]!.axes).toEqual({ "topology.service.replicas": 2, "workload.vus": 8 });
    expect(out.runs).toBe(12);
  });

  it("variants and a sweep together: every variant at every point", () => {
    const out = expand({
      name: "x",
      base,
      variants: [
        { name: "rr", patch: { topology: { balancer: { algorithm: "round_robin" } } } },
        { name: "lc", patch: { topology: { balancer: { algorithm: "least_conn" } } } },
      ],
      sweep: [{ field: "topology.service.replicas", values: [2, 4] }],
      repetitions: 1,
    });
    if (!out.ok) throw new Error(JSON.stringify(out.issues));
    expect(out.variants.map((v) => `${v.name}:${v.run.topology.balancer.algorithm}`)).toEqual([
      "rr · replicas=2:round_robin",
      "rr · replicas=4:round_robin",
      "lc · replicas=2:least_conn",
      "lc · replicas=4:least_conn",
    ]);
  });

  it("without variants or a sweep: the base alone", () => {
    const out = expand({ name: "a", base, repetitions: 5 });
    if (!out.ok) throw new Error(JSON.stringify(out.issues));
    expect(out.variants.map((v) => v.name)).toEqual(["base"]);
    expect(out.runs).toBe(5);
  });

  it("an invalid sweep value is an issue at the sweep naming the variant and the field's range", () => {
    const issues = issuesOf({ name: "x", base, sweep: [{ field: "topology.service.replicas", values: [1, 40] }] });
    expect(issues).toEqual([{ path: "sweep.0.values", message: 'variant "replicas=40": service.replicas must be between 1 and 16' }]);
  });

  it("an invalid patch is an issue at the variant's patch; an unknown field too", () => {
    const issues = issuesOf({
      name: "x",
      base,
      variants: [
        { name: "ok", patch: {} },
        { name: "bad", patch: { topology: { service: { cpus: 0 } }, workload: { vu: 3 } } },
      ],
    });
    expect(issues.map((i) => i.path)).toEqual(["variants.1.patch.topology.service.cpus", "variants.1.patch.workload.vu"]);
    expect(issues[0]!.message).toMatch(/^variant "bad": service.cpus must be between/);
  });

  it("a variant's bad patch is said once, naming the variant, not once per sweep point", () => {
    const issues = issuesOf({
      name: "x",
      base,
      variants: [{ name: "greedy", patch: { topology: { service: { cpus: 0 } } } }],
      sweep: [{ field: "workload.vus", values: [1, 2, 4] }],
    });
    expect(issues).toEqual([
      { path: "variants.0.patch.topology.service.cpus", message: expect.stringMatching(/^variant "greedy": service.cpus must be between/) },
    ]);
  });

  it("an invalid base is reported once, at the base, not once per variant", () => {
    const issues = issuesOf({
      name: "x",
      base: { ...base, workload: { durationSeconds: 10 } },
      sweep: [{ field: "topology.service.replicas", values: [1, 2, 3] }],
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe("base.workload.vus");
  });

  it("more than 200 runs is refused, saying how many it would make", () => {
    const issues = issuesOf({
      name: "x",
      base,
      sweep: [{ field: "workload.vus", values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }],
      repetitions: 20,
    });
    expect(issues).toEqual([
      { path: "repetitions", message: expect.stringMatching(/would make 220 runs \(11 variant\(s\) × 20 repetition\(s\)\); at most 200/) },
    ]);
  });

  it("the baseline names a variant", () => {
    const out = expand({
      name: "x",
      base,
      variants: [
        { name: "a", patch: {} },
        { name: "b", patch: {} },
      ],
      baseline: "b",
    });
    expect(out.ok && out.baseline).toBe(1);
    expect(issuesOf({ name: "x", base, variants: [{ name: "a", patch: {} }], baseline: "c" })[0]!.message).toBe(
      'baseline must name a variant: one of "a"',
    );
  });

  it("prototype keys are refused wherever they are", () => {
    const patch = JSON.parse('{"topology": {"__proto__": {"polluted": true}}}') as Record<string, unknown>;
    expect(issuesOf({ name: "x", base, variants: [{ name: "a", patch }] })[0]!.path).toBe("variants.0.patch.topology.__proto__");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("ZExperimentCreate", () => {
  const fail = (input: unknown) => {
    const r = ZExperimentCreate.safeParse(input);
    if (r.success) throw new Error("expected a failure");
    return r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("defaults: 3 repetitions, a 5 s settle pause", () => {
    const r = ZExperimentCreate.parse({ name: "x", base });
    expect([r.repetitions, r.settleSeconds]).toEqual([3, 5]);
  });

  it("names the field and its range", () => {
    expect(fail({ name: "x", base, repetitions: 0 })).toEqual(["repetitions: repetitions must be between 1 and 20"]);
    expect(fail({ name: "x", base, repetitions: "3" })).toEqual(["repetitions: repetitions must be a number"]);
    expect(fail({ name: "x", base, sweep: [{ field: "topology.__proto__.x", values: [1] }] })[0]).toMatch(
      /^sweep.0.field: sweep.field must be a dotted path/,
    );
    expect(fail({ name: "x", base, sweep: [{ field: "workload.vus", values: [] }] })[0]).toMatch(
      /sweep.values must have between 1 and 20 values/,
    );
    expect(fail({ name: "x", base: [1] })).toEqual(["base: base must be an object"]);
    expect(fail({ name: "x", base, variant: [] })[0]).toMatch(/unknown field variant/);
    expect(fail({ name: "x", base, variants: [{ name: "a" }, { name: "a" }] })).toEqual([
      'variants.1.name: variants[1].name "a" is used twice',
    ]);
  });

  it("tells a form its fields' ranges, defaults and lengths (fieldInfo), names through their non-empty pipe", () => {
    const { repetitions, settleSeconds, name, variantName } = EXPERIMENT_LIMITS;
    expect(fieldInfo(ZExperimentCreate, "repetitions")).toEqual({ kind: "number", int: true, ...repetitions, default: 3, optional: true });
    expect(fieldInfo(ZExperimentCreate, "settleSeconds")).toEqual({
      kind: "number",
      int: true,
      ...settleSeconds,
      default: 5,
      optional: true,
    });
    expect(fieldInfo(ZExperimentCreate, "name")).toEqual({ kind: "text", maxLength: name.max, optional: false });
    expect(fieldInfo(ZVariantDef, "name")).toEqual({ kind: "text", maxLength: variantName.max, optional: false });
    expect(fieldInfo(ZExperimentCreate, "baseline")).toEqual({ kind: "text", maxLength: variantName.max, optional: true });
  });
});

describe("runOrder", () => {
  it("interleaves: every variant once per repetition", () => {
    expect(runOrder(3, 2).map((r) => `${"ABC"[r.variant]}${r.repetition}`)).toEqual(["A0", "B0", "C0", "A1", "B1", "C1"]);
  });
});

describe("runCount and estimateSeconds", () => {
  it("counts variants × sweep points × repetitions", () => {
    expect(
      runCount({
        variants: [
          { name: "a", patch: {} },
          { name: "b", patch: {} },
        ],
        sweep: [{ field: "workload.vus", values: [1, 2, 3] }],
        repetitions: 3,
      }),
    ).toBe(18);
  });

  it("adds each run's load, its overhead and a settle pause between runs", () => {
    const out = expand({
      name: "x",
      base,
      variants: [
        { name: "a", patch: {} },
        { name: "b", patch: { workload: { durationSeconds: 20 } } },
      ],
      repetitions: 2,
      settleSeconds: 5,
    });
    if (!out.ok) throw new Error("expected ok");
    expect(estimateSeconds(out.variants, 2, 5)).toBe(2 * (10 + 20 + 2 * RUN_OVERHEAD_SECONDS + 2 * 5) - 5);
  });
});

describe("an experiment's thresholds", () => {
  const p95 = { metric: "p95", op: "<", value: 250 } as const;
  const errors = { metric: "errorRate", op: "<", value: 0.01 } as const;

  it("per-run ones are added to every run's own (base.thresholds); comparisons stay with the experiment", () => {
    const out = expand({
      name: "t",
      base: { ...base, thresholds: [p95] },
      variants: [
        { name: "a", patch: {} },
        { name: "b", patch: { thresholds: [] } },
      ],
      thresholds: [errors, { metric: "rps", compare: "baseline", worseBy: 5 }],
    });
    if (!out.ok) throw new Error(JSON.stringify(out.issues));
    expect(out.variants.map((v) => v.run.thresholds)).toEqual([[p95, errors], [errors]]);
    expect(
      comparisonThresholdsOf(
        ZExperimentCreate.parse({ name: "t", base, thresholds: [errors, { metric: "rps", compare: "baseline", worseBy: 5 }] }),
      ),
    ).toEqual([{ metric: "rps", compare: "baseline", worseBy: 5, p: 0.05 }]);
  });

  it("checks without a script is refused at the experiment's threshold or at the base's", () => {
    expect(issuesOf({ name: "t", base, thresholds: [errors, { metric: "checks", op: ">=", value: 0.99 }] })).toEqual([
      {
        path: "thresholds.1.metric",
        message: `variant "base": thresholds.1.metric checks is the pass rate of a k6 script's checks, and this run has no workload.script; without one: rps, p50, p90, p95, p99, max, errorRate`,
      },
    ]);
    expect(issuesOf({ name: "t", base: { ...base, thresholds: [{ metric: "checks", op: ">=", value: 0.99 }] } })[0]!.path).toBe(
      "base.thresholds.0.metric",
    );
  });

  it("a run gets at most 20 thresholds, its own and the experiment's together", () => {
    const many = Array.from({ length: 12 }, () => p95);
    expect(issuesOf({ name: "t", base: { ...base, thresholds: many }, thresholds: many })).toEqual([
      {
        path: "thresholds",
        message: `variant "base": its runs would have 24 thresholds (12 of its own, 12 of the experiment's); at most 20`,
      },
    ]);
  });
});

describe("an experiment's engine", () => {
  it("comes from the base and a variant may change it, with its placement; each run records its own", () => {
    const out = expand({
      name: "across nodes",
      base: { ...base, engine: "swarm-local" },
      variants: [
        { name: "spread", patch: { topology: { service: { replicas: 4 }, placement: { strategy: "spread" } } } },
        { name: "one node", patch: { topology: { service: { replicas: 4 }, placement: { pin: { app: "node1" } } } } },
        { name: "here", patch: { engine: "local" } },
      ],
    });
    if (!out.ok) throw new Error(JSON.stringify(out.issues));
    expect(out.variants.map((v) => [v.run.engine, v.run.topology.placement])).toEqual([
      ["swarm-local", { strategy: "spread" }],
      ["swarm-local", { strategy: "spread", pin: { app: "node1" } }],
      ["local", undefined],
    ]);
    const input = ZExperimentCreate.parse({ name: "x", base, variants: [{ name: "a", patch: { engine: "swarm-local" } }] });
    const expansion = expandExperiment(input);
    if (!expansion.ok) throw new Error("expected a valid experiment");
    const records = experimentRecords(input, expansion, { experiment: "e", run: () => "r" });
    expect(records.runs.length).toBeGreaterThan(0);
    for (const r of records.runs) expect(r.engine).toBe("swarm-local");
  });
});
