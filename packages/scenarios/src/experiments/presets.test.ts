import { describe, expect, it } from "vitest";
import { estimateSeconds, expandExperiment, ZExperimentCreate } from "./experiments";
import { validateAgainstHost } from "../contract/host";
import { PRESETS, presetByName, SCALE_MY_SERVICE } from "./presets";
import { applyPatch } from "./experiments";

// The machine the presets are scaled to: 2 cores, 24 GB.
const HOST = { cpus: 2, memoryBytes: 24 * 1024 ** 3 };

describe("presets", () => {
  it("one per experiment of the write-ups and one for the user's service, each with a unique name", () => {
    expect(PRESETS.filter((p) => !p.template)).toHaveLength(7);
    expect(PRESETS.filter((p) => p.template).map((p) => p.name)).toEqual([SCALE_MY_SERVICE]);
    expect(new Set(PRESETS.map((p) => p.name)).size).toBe(8);
    expect(presetByName("failover")?.title).toMatch(/^6\./);
  });

  for (const preset of PRESETS) {
    it(`${preset.name}: valid on a 2-core host, its reference figures beside variants it has, under an hour`, () => {
      const experiment = preset.template
        ? { ...preset.experiment, base: applyPatch(preset.experiment.base, preset.template.example) }
        : preset.experiment;
      const def = ZExperimentCreate.parse(experiment);
      const out = expandExperiment(def);
      if (!out.ok) throw new Error(JSON.stringify(out.issues));
      for (const v of out.variants) expect(validateAgainstHost(v.run, HOST), v.name).toEqual([]);
      const names = out.variants.map((v) => v.name);
      for (const ref of preset.reference) expect(names, `${preset.name}: reference for ${ref.variant}`).toContain(ref.variant);
      expect(out.variants.length).toBeGreaterThanOrEqual(2);
      expect(def.repetitions).toBeGreaterThanOrEqual(2);
      expect(estimateSeconds(out.variants, def.repetitions, def.settleSeconds)).toBeLessThan(3600);
    });
  }

  it("scale-my-service: 3 replica counts × 3 repetitions of the user's image; incomplete without the image and its request", () => {
    const preset = presetByName(SCALE_MY_SERVICE)!;
    const incomplete = expandExperiment(ZExperimentCreate.parse(preset.experiment));
    expect(incomplete.ok).toBe(false);
    if (incomplete.ok) return;
    expect(incomplete.issues.map((i) => i.path)).toEqual(expect.arrayContaining(["base.topology.service.image"]));
    const out = expandExperiment(
      ZExperimentCreate.parse({ ...preset.experiment, base: applyPatch(preset.experiment.base, preset.template!.example) }),
    );
    expect(out.ok && out.runs).toBe(9);
  });
});
