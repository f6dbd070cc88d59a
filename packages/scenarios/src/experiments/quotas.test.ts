import { describe, expect, it } from "vitest";
import { buildPlan } from "../plan/plan";
import { LAB_IMAGES } from "../components/types";
import { cpuLimitsTotal, runWarnings } from "../contract/host";
import { ZRunCreate, TRunCreateInput } from "../contract/run";
import { applyPatch, expandExperiment, ZExperimentCreate, TExperimentCreateInput } from "./experiments";
import { PRESETS } from "./presets";
import { DEFAULT_QUOTAS, experimentRefusal, experimentWarnings, hoursText, queuedSeconds, queueRefusal } from "./quotas";

const expanded = (input: TExperimentCreateInput) => {
  const e = ZExperimentCreate.parse(input);
  const out = expandExperiment(e);
  if (!out.ok) throw new Error(JSON.stringify(out.issues));
  return { e, variants: out.variants };
};

const hourLong = (over: Partial<TExperimentCreateInput> = {}): TExperimentCreateInput => ({
  name: "long",
  base: { topology: { service: { replicas: 1 } }, workload: { vus: 1, durationSeconds: 3600 } },
  sweep: [{ field: "topology.service.replicas", values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }],
  repetitions: 20,
  ...over,
});

describe("experimentRefusal", () => {
  it("refuses a 200-run experiment of 1-hour runs by default, naming the estimate, the runs and the limit", () => {
    const { e, variants } = expanded(hourLong());
    const refusal = experimentRefusal(e, variants, DEFAULT_QUOTAS);
    expect(refusal?.kind).toBe("never");
    expect(refusal?.message).toBe(
      "this experiment would take about 201 h (200 runs × 3,600 s plus start-up and settle pauses); the lab allows at most 6 h per experiment (SCALELAB_MAX_EXPERIMENT_HOURS)",
    );
    // One pass of the 10 variants is already 10 h: the duration is what to change, and it is swept nowhere: the base's.
    expect(refusal?.issue.path).toBe("base.workload.durationSeconds");
  });

  it("names the repetitions when fewer of them would fit, and a variant's patch or the sweep where the longest duration was set", () => {
    const reps = expanded(hourLong({ sweep: undefined, repetitions: 8 }));
    expect(experimentRefusal(reps.e, reps.variants, DEFAULT_QUOTAS)?.issue.path).toBe("repetitions");
    const patched = expanded(
      hourLong({
        sweep: undefined,
        repetitions: 1,
        base: { topology: { service: { replicas: 1 } }, workload: { vus: 1, durationSeconds: 60 } },
        variants: [
          { name: "short", patch: {} },
          ...Array.from({ length: 7 }, (_, i) => ({ name: `long ${i}`, patch: { workload: { durationSeconds: 3600 } } })),
        ],
      }),
    );
    const refusal = experimentRefusal(patched.e, patched.variants, DEFAULT_QUOTAS);
    expect(refusal?.issue.path).toBe("variants.1.patch.workload.durationSeconds");
    expect(refusal?.message).toContain("(8 runs of 60–3,600 s plus");
    const swept = expanded(
      hourLong({ repetitions: 1, sweep: [{ field: "workload.durationSeconds", values: [3000, 3100, 3200, 3300, 3400, 3500, 3600] }] }),
    );
    expect(experimentRefusal(swept.e, swept.variants, DEFAULT_QUOTAS)?.issue.path).toBe("sweep.0.values");
  });

  it("accepts an experiment within the maximum, and the limit is configurable", () => {
    const { e, variants } = expanded(hourLong({ sweep: undefined, repetitions: 5 }));
    // 5 × (3,600 + 15 + 5) − 5 s: 5.03 h.
    expect(experimentRefusal(e, variants, DEFAULT_QUOTAS)).toBeNull();
    expect(experimentRefusal(e, variants, { maxExperimentSeconds: 5 * 3600 })?.message).toContain("at most 5 h per experiment");
  });

  it("lets every preset run as it is under the default maximum", () => {
    for (const preset of PRESETS) {
      const parsed = ZExperimentCreate.parse(preset.experiment);
      const e = preset.template ? { ...parsed, base: applyPatch(parsed.base, preset.template.example) } : parsed;
      const out = expandExperiment(e);
      if (!out.ok) throw new Error(`${preset.name}: ${JSON.stringify(out.issues)}`);
      expect(experimentRefusal(e, out.variants, DEFAULT_QUOTAS), preset.name).toBeNull();
    }
  });
});

describe("queuedSeconds and queueRefusal", () => {
  const now = Date.parse("2026-11-26T06:00:00Z");

  it("counts a queued run whole (load, overhead, settle pause) and a running one less the time it has run", () => {
    expect(
      queuedSeconds(
        [
          { status: "queued", loadSeconds: 3600, settleSeconds: 0, startedAtMs: null },
          { status: "queued", loadSeconds: 30, settleSeconds: 5, startedAtMs: null },
          { status: "running", loadSeconds: 600, settleSeconds: 0, startedAtMs: now - 100_000 },
          { status: "running", loadSeconds: 10, settleSeconds: 0, startedAtMs: now - 100_000 },
        ],
        now,
      ),
    ).toBe(3615 + 50 + 515 + 0);
  });

  it("refuses work that would take the queue beyond its maximum, naming the limit, what is queued and when to retry", () => {
    const refusal = queueRefusal({ seconds: 23 * 3600, runs: 23 }, { seconds: 3615 * 2, what: "this experiment" }, DEFAULT_QUOTAS);
    expect(refusal).toMatchObject({ kind: "wait", retryAfterSeconds: 23 * 3600 + 7230 - 24 * 3600 });
    expect(refusal?.message).toBe(
      "the queue already holds about 23 h of work (23 runs queued or running) and this experiment would add about 2 h; the lab's queue holds at most 24 h of work (SCALELAB_MAX_QUEUE_HOURS): wait about 1 h for it to drain, or cancel queued runs",
    );
    expect(queueRefusal({ seconds: 23 * 3600, runs: 23 }, { seconds: 3600, what: "this run" }, DEFAULT_QUOTAS)).toBeNull();
  });

  it("says work that cannot fit even an empty queue will never fit", () => {
    const refusal = queueRefusal({ seconds: 0, runs: 0 }, { seconds: 5 * 3600, what: "this experiment" }, { maxQueueSeconds: 4 * 3600 });
    expect(refusal?.kind).toBe("never");
    expect(refusal?.message).toContain("this experiment would take about 5 h by itself; the lab's queue holds at most 4 h");
  });

  it("writes hours as a person would", () => {
    expect([hoursText(723_995), hoursText(6 * 3600), hoursText(6.5 * 3600), hoursText(1800), hoursText(20)]).toEqual([
      "201 h",
      "6 h",
      "6.5 h",
      "30 min",
      "1 min",
    ]);
  });
});

const IMAGES = Object.fromEntries(LAB_IMAGES.map((name) => [name, `scalelab/${name}`]));
const run = (input: TRunCreateInput) => ZRunCreate.parse(input);

describe("over-subscription", () => {
  const heavy: TRunCreateInput = {
    topology: { service: { replicas: 2, cpus: 1.5 }, balancer: { kind: "nginx", cpus: 1 } },
    workload: { vus: 4, durationSeconds: 10, loadgenCpus: 2 },
  };

  it("adds up the CPU limits of every container the plan starts, the load generators' included", () => {
    for (const input of [heavy, { topology: { service: { replicas: 3, cpus: 0.2 } }, workload: { vus: 3, durationSeconds: 5 } }]) {
      const r = run(input);
      const plan = buildPlan({ runId: "preview-run", run: r, images: IMAGES });
      const planned = [...plan.containers, ...plan.loadgens].reduce((sum, c) => sum + (c.nanoCpus ?? 0) / 1e9, 0);
      expect(cpuLimitsTotal(r)).toBeCloseTo(planned, 6);
    }
  });

  it("warns when the limits add up to more than the host's cores, and not when they fit", () => {
    expect(runWarnings(run(heavy), { cpus: 2 })).toEqual([
      {
        code: "cpu_oversubscribed",
        message:
          "the containers' CPU limits add up to 6 cores on this 2-core host: they will share the cores, so the figures measure the sharing too",
      },
    ]);
    expect(runWarnings(run(heavy), { cpus: 8 })).toEqual([]);
  });

  it("names the experiment's variants that over-subscribe the host", () => {
    const { variants } = expanded({
      name: "replicas",
      base: { topology: { service: { replicas: 1, cpus: 0.5 } }, workload: { vus: 1, durationSeconds: 5, loadgenCpus: 0.5 } },
      sweep: [{ field: "topology.service.replicas", values: [1, 4, 8] }],
    });
    const [warning, ...rest] = experimentWarnings(variants, { cpus: 2 });
    expect(rest).toEqual([]);
    expect(warning?.message).toMatch(
      /^variants "replicas=4", "replicas=8": the containers' CPU limits add up to [\d.]+–[\d.]+ cores on this 2-core host/,
    );
    expect(experimentWarnings(variants, { cpus: 64 })).toEqual([]);
  });
});
