import { ZHostFacts, ZPlacement } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { placeRun, runNodesFacts } from "./placement";

const GB = 1024 ** 3;
const nodes = ["node1", "node2", "node3"].map((name) => ({ name, cpus: 2, memoryBytes: 4 * GB, availability: "active", state: "ready" }));
const containers = [0, 1, 2].map((i) => ({ name: `sl-r-app-${i}`, role: "app", cpus: 0.5, image: "testbed" }));

describe("the worker's placement", () => {
  it("puts everything on local without nodes", () => {
    expect(placeRun(containers, null, undefined).map((c) => c.node)).toEqual(["local", "local", "local"]);
  });

  it("keeps each container's fields and adds the node placement chose", () => {
    const placed = placeRun(containers, nodes, ZPlacement.parse({}));
    expect(placed.map((c) => [c.name, c.image, c.node])).toEqual([
      ["sl-r-app-0", "testbed", "node1"],
      ["sl-r-app-1", "testbed", "node2"],
      ["sl-r-app-2", "testbed", "node3"],
    ]);
    const facts = runNodesFacts("swarm-local", nodes, placed);
    expect(facts).toEqual({
      engine: "swarm-local",
      nodes: nodes.map(({ name }) => ({ name, cpus: 2, memoryBytes: 4 * GB })),
      containerNodes: { "sl-r-app-0": "node1", "sl-r-app-1": "node2", "sl-r-app-2": "node3" },
    });
    // What the run records parses as its host facts.
    expect(ZHostFacts.parse({ cpus: 6, memoryBytes: 12 * GB, kernel: "k", dockerVersion: "d", ...facts })).toMatchObject(facts);
  });

  it("fails with placement's message when a pinned node is gone", () => {
    expect(() => placeRun(containers, nodes.slice(0, 2), ZPlacement.parse({ pin: { app: "node3" } }))).toThrow(
      "the run's containers cannot be placed: topology.placement.pin.app: node node3 is not a node of this engine (its nodes: node1, node2)",
    );
  });
});
