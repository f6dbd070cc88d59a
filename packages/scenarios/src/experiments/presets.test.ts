import { describe, expect, it } from "vitest";
import { estimateSeconds, expandExperiment, ZExperimentCreate } from "./experiments";
import { validateAgainstHost, validateAgainstNodes } from "../contract/host";
import { PRESETS, presetByName, SCALE_MY_SERVICE } from "./presets";
import { applyPatch } from "./experiments";

// The machine the presets are scaled to: 2 cores, 24 GB.
const HOST = { cpus: 2, memoryBytes: 24 * 1024 ** 3 };

describe("presets", () => {
  it("one per experiment of the write-ups and one for the user's service, each with a unique name", () => {
    expect(PRESETS.filter((p) => !p.template && !p.engine)).toHaveLength(7);
    expect(PRESETS.filter((p) => p.template).map((p) => p.name)).toEqual([SCALE_MY_SERVICE]);
    expect(PRESETS.filter((p) => p.engine).map((p) => p.name)).toEqual(["replicas-across-nodes"]);
    expect(new Set(PRESETS.map((p) => p.name)).size).toBe(9);
    expect(presetByName("failover")?.title).toMatch(/^6\./);
  });

  for (const preset of PRESETS) {
    it(`${preset.name}: valid on a 2-core host (or its engine's nodes), its reference figures beside variants it has, under an hour`, () => {
      const experiment = preset.template
        ? { ...preset.experiment, base: applyPatch(preset.experiment.base, preset.template.example) }
        : preset.experiment;
      const def = ZExperimentCreate.parse(experiment);
      const out = expandExperiment(def);
      if (!out.ok) throw new Error(JSON.stringify(out.issues));
      // A Swarm preset on the test cluster's nodes (each as this host), the others on this host.
      const nodes = Array.from({ length: preset.engine?.nodes ?? 0 }, (_, i) => ({
        name: `node${i + 1}`,
        ...HOST,
        availability: "active",
      }));
      for (const v of out.variants)
        expect(preset.engine ? validateAgainstNodes(v.run, nodes) : validateAgainstHost(v.run, HOST), v.name).toEqual([]);
      const names = out.variants.map((v) => v.name);
      for (const ref of preset.reference) expect(names, `${preset.name}: reference for ${ref.variant}`).toContain(ref.variant);
      expect(out.variants.length).toBeGreaterThanOrEqual(2);
      expect(def.repetitions).toBeGreaterThanOrEqual(2);
      expect(estimateSeconds(out.variants, def.repetitions, def.settleSeconds)).toBeLessThan(3600);
    });
  }

  it("replicas-across-nodes: experiment 1 on swarm-local, the same topology pinned to one node against spread over 4", () => {
    const preset = presetByName("replicas-across-nodes")!;
    const out = expandExperiment(ZExperimentCreate.parse(preset.experiment));
    if (!out.ok) throw new Error(JSON.stringify(out.issues));
    expect(out.variants.map((v) => [v.name, v.run.engine, v.run.topology.placement])).toEqual([
      ["4 on one node", "swarm-local", { strategy: "spread", pin: { app: "node1" } }],
      ["4 on 4 nodes", "swarm-local", { strategy: "spread" }],
    ]);
    const one = presetByName("replicas-one-host")!.experiment.base;
    expect(out.variants[0]!.run.workload).toMatchObject(one.workload as object);
    expect(preset.engine).toEqual({ name: "swarm-local", nodes: 4, setup: "bash scripts/swarm.sh up --nodes 4" });
    expect(preset.expected).toMatch(/no gain can show/);
  });

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
