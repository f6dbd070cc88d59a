import { ZExperimentCreate } from "@scalelab/scenarios/experiments";
import { PRESETS } from "@scalelab/scenarios/experiments";
import { describe, expect, it } from "vitest";
import { lastFaultSecond, planPresetRun, presetDurations, quickFieldOf, referenceTable, runsAndDuration, variantsLine } from "./preset-run";

/** A preset as `presets.list` gives it: its experiment parsed, defaults filled in. */
const preset = (name: string) => {
  const p = PRESETS.find((x) => x.name === name)!;
  return { ...p, experiment: ZExperimentCreate.parse(p.experiment) };
};

describe("planPresetRun", () => {
  it("leaves the preset as it is when nothing is changed, with the server's run count and estimate", () => {
    const plan = planPresetRun(preset("blocking-logging"), { repetitions: "", duration: "" });
    // 2 variants × 3 repetitions; each round 2 × (20 s load + 15 s overhead + 5 s settle), less the first settle pause.
    expect(plan).toMatchObject({ ok: true, body: { name: "blocking-logging" }, runs: 6, estimatedSeconds: 3 * 80 - 5, changed: false });
    if (plan.ok) expect(plan.body).toEqual({ name: "blocking-logging" });
  });

  it("sends the preset's own repetitions as no change", () => {
    const plan = planPresetRun(preset("blocking-logging"), { repetitions: " 3 ", duration: "" });
    expect(plan.ok && plan.body).toEqual({ name: "blocking-logging" });
  });

  it("turns a quick check into repetitions and a patch of the load's duration, and re-estimates", () => {
    const plan = planPresetRun(preset("blocking-logging"), { repetitions: "2", duration: "5" });
    expect(plan).toMatchObject({
      ok: true,
      runs: 4,
      estimatedSeconds: 2 * 2 * (5 + 15 + 5) - 5,
      repetitions: 2,
      durationSeconds: 5,
      changed: true,
    });
    expect(plan.ok && plan.body).toEqual({ name: "blocking-logging", repetitions: 2, patch: { workload: { durationSeconds: 5 } } });
  });

  it("counts sweep points as variants", () => {
    const plan = planPresetRun(preset("cpu-limit-replicas"), { repetitions: "1", duration: "" });
    expect(plan).toMatchObject({ ok: true, runs: 4, estimatedSeconds: 4 * (10 + 15 + 5) - 5 });
  });

  it("names a repetition count that is no whole number or out of range, on the repetitions", () => {
    for (const repetitions of ["0", "21", "2.5", "two", "-1"]) {
      const plan = planPresetRun(preset("blocking-logging"), { repetitions, duration: "" });
      expect(plan, repetitions).toEqual({
        ok: false,
        issues: [{ path: "repetitions", message: "repetitions must be a whole number between 1 and 20", field: "repetitions" }],
      });
    }
  });

  it("puts the run schema's range of the duration on the duration", () => {
    const plan = planPresetRun(preset("blocking-logging"), { repetitions: "", duration: "4" });
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.issues.length).toBeGreaterThan(0);
    expect(plan.issues[0]).toMatchObject({ path: "base.workload.durationSeconds", field: "duration" });
    expect(plan.issues[0]!.message).toContain("durationSeconds");
    expect(planPresetRun(preset("blocking-logging"), { repetitions: "", duration: "5.5" })).toMatchObject({
      ok: false,
      issues: [{ field: "duration" }],
    });
  });

  it("says when a shorter load leaves the preset's faults after its end", () => {
    const plan = planPresetRun(preset("failover"), { repetitions: "1", duration: "20" });
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    // One issue for the four faults, on the duration.
    expect(plan.issues).toEqual([
      {
        path: "base.workload.durationSeconds",
        message: "this preset's faults go on until 120 s: the load must last at least 121 s (or use Copy and change to move them)",
        field: "duration",
      },
    ]);
    expect(planPresetRun(preset("failover"), { repetitions: "1", duration: "121" })).toMatchObject({ ok: true, runs: 2 });
    expect(lastFaultSecond(preset("failover").experiment)).toBe(120);
    expect(lastFaultSecond(preset("blocking-logging").experiment)).toBe(0);
  });

  it("says when the runs would be too many", () => {
    const plan = planPresetRun(preset("hot-key"), { repetitions: "20", duration: "" });
    expect(plan).toMatchObject({ ok: true, runs: 120 });
    const many = planPresetRun(preset("cpu-limit-replicas"), { repetitions: "20", duration: "" });
    expect(many).toMatchObject({ ok: true, runs: 80 });
  });

  it("plans every preset of the write-ups as it is (the one for the user's service starts from the run form)", () => {
    for (const p of PRESETS.filter((x) => !x.template)) {
      expect(planPresetRun(preset(p.name), { repetitions: "", duration: "" }).ok, p.name).toBe(true);
    }
  });
});

describe("quickFieldOf", () => {
  it("places the server's paths on the quick check's inputs", () => {
    expect(quickFieldOf("repetitions")).toBe("repetitions");
    expect(quickFieldOf("base.workload.durationSeconds")).toBe("duration");
    expect(quickFieldOf("patch")).toBe("duration");
    expect(quickFieldOf("patch.workload.durationSeconds")).toBe("duration");
    expect(quickFieldOf("base.faults.0.at")).toBeNull();
    expect(quickFieldOf("base.topology.service.cpus")).toBeNull();
    expect(quickFieldOf("")).toBeNull();
  });
});

describe("presetDurations", () => {
  it("is the load duration the variants share", () => {
    expect(presetDurations(preset("blocking-logging").experiment)).toEqual({ min: 20, max: 20 });
    expect(presetDurations(preset("failover").experiment)).toEqual({ min: 180, max: 180 });
  });
});

describe("wording", () => {
  it("says runs and a rough duration", () => {
    expect(runsAndDuration(12, 360)).toBe("12 runs · about 6 min");
    expect(runsAndDuration(1, 30)).toBe("1 run · about 30 s");
  });

  it("lists variants and sweep axes", () => {
    expect(variantsLine(preset("blocking-logging").experiment)).toBe("blocking, async");
    expect(variantsLine(preset("cpu-limit-replicas").experiment)).toBe("1 replica, 3 replicas × connections 1, 3");
    expect(variantsLine({ ...preset("blocking-logging").experiment, variants: undefined })).toBe("the base alone");
  });

  it("tables the write-up's figures: a row per variant, a column per metric", () => {
    expect(
      referenceTable([
        { variant: "1 replica", metric: "rps", value: 6300, note: "wrk" },
        { variant: "3 replicas", metric: "rps", value: 450 },
        { variant: "1 replica", metric: "latencyMs.avg", value: 10000, note: "4 threads" },
        { variant: "x", metric: "latencyMs.p95", value: 22.6 },
        { variant: "y", metric: "errorRate", value: 0.012 },
      ]),
    ).toEqual({
      figures: ["req/s", "latency avg", "latency p95", "error rate"],
      rows: [
        { variant: "1 replica", values: ["6,300", "10 s", null, null], note: "wrk; 4 threads" },
        { variant: "3 replicas", values: ["450", null, null, null], note: null },
        { variant: "x", values: [null, null, "22.6 ms", null], note: null },
        { variant: "y", values: [null, null, null, "1.2 %"], note: null },
      ],
    });
    expect(referenceTable([])).toEqual({ figures: [], rows: [] });
  });
});
