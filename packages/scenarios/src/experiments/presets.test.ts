import { describe, expect, it } from "vitest";
import { estimateSeconds, expandExperiment, ZExperimentCreate } from "./experiments";
import { validateAgainstHost } from "../contract/host";
import { PRESETS, presetByName } from "./presets";

// The machine the presets are scaled to: 2 cores, 24 GB.
const HOST = { cpus: 2, memoryBytes: 24 * 1024 ** 3 };

describe("presets", () => {
  it("one per experiment of the write-ups, each with a unique name", () => {
    expect(PRESETS).toHaveLength(7);
    expect(new Set(PRESETS.map((p) => p.name)).size).toBe(7);
    expect(presetByName("failover")?.title).toMatch(/^6\./);
  });

  for (const preset of PRESETS) {
    it(`${preset.name}: valid on a 2-core host, its reference figures beside variants it has, under an hour`, () => {
      const def = ZExperimentCreate.parse(preset.experiment);
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
});
