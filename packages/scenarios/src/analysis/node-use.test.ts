import { describe, expect, it } from "vitest";
import { ZRunSummary, TRunSummary } from "../contract/results";
import { readFileSync } from "node:fs";
import { runFindings } from "./findings";
import { nodeUse } from "./node-use";
import { THostSecond } from "./host-noise";

// A recorded run's summary (fixtures/findings/exp1--4-replicas: 4 unlimited replicas saturated the 2-core host).
const recorded = ZRunSummary.parse(
  (JSON.parse(readFileSync(new URL("./fixtures/findings/exp1--4-replicas.json", import.meta.url), "utf8")) as { summary: unknown }).summary,
);

const nodes = [
  { name: "node1", cpus: 2 },
  { name: "node2", cpus: 2 },
];
const cpuSeconds = (container: string, values: number[]) => values.map((cpuPct, t) => ({ t, container, cpuPct }));
const host = (other: number): THostSecond[] =>
  Array.from({ length: 10 }, (_, t) => ({ t, cores: 2, hostCpuPct: 100, runCpuPct: 100 - other, workerCpuPct: 0, otherCpuPct: other }));

describe("nodeUse", () => {
  it("adds the medians of the containers placed on each node, with each node's host noise", () => {
    const seconds = [...cpuSeconds("app-0", [90, 100, 95]), ...cpuSeconds("app-1", [80, 100, 90]), ...cpuSeconds("lb-0", [10, 20, 30])];
    const use = nodeUse(nodes, { "app-0": "node1", "app-1": "node1", "lb-0": "node2" }, seconds, { node2: host(60) });
    expect(use.map(({ hostNoise: _, ...n }) => n)).toEqual([
      { node: "node1", cpus: 2, containers: 2, cpuPct: 185 },
      { node: "node2", cpus: 2, containers: 1, cpuPct: 20 },
    ]);
    expect(use[0]!.hostNoise).toBeUndefined();
    expect(use[1]!.hostNoise).toMatchObject({ cores: 2, meanPct: 30 });
  });
});

describe("host findings per node", () => {
  const withNodes = (n: NonNullable<TRunSummary["nodes"]>): TRunSummary => ({ ...recorded, hostNoise: undefined, nodes: n });

  it("the saturation of the whole host becomes that of the node whose cores were used up", () => {
    const f = runFindings({
      summary: withNodes([
        { node: "node1", cpus: 2, containers: 3, cpuPct: 190 },
        { node: "node2", cpus: 2, containers: 2, cpuPct: 40 },
      ]),
      hostCpus: 4,
    });
    const saturated = f.filter((x) => x.code === "host_cpu_saturated");
    expect(saturated).toHaveLength(1);
    expect(saturated[0]!.message).toMatch(
      /^Node node1's 2 cores were saturated: the 3 container\(s\) placed on it together used 190 % of 200 %/,
    );
    expect(saturated[0]!.evidence).toEqual({ node: "node1", hostCpus: 2, totalCpuPct: 190, nodeContainers: 3 });
  });

  it("spread over nodes with spare cores, the same load saturates none", () => {
    const f = runFindings({
      summary: withNodes([
        { node: "node1", cpus: 2, containers: 2, cpuPct: 95 },
        { node: "node2", cpus: 2, containers: 2, cpuPct: 92 },
      ]),
      hostCpus: 4,
    });
    expect(f.map((x) => x.code)).not.toContain("host_cpu_saturated");
    // On one host the recorded figures do saturate it.
    expect(runFindings({ summary: recorded, hostCpus: 2 }).map((x) => x.code)).toContain("host_cpu_saturated");
  });

  it("host noise is said for the node that had it", () => {
    const [noisy] = nodeUse([{ name: "node2", cpus: 2 }], {}, [], { node2: host(60) });
    const f = runFindings({
      summary: withNodes([
        { node: "node1", cpus: 2, containers: 1, cpuPct: 10 },
        { ...noisy!, containers: 1, cpuPct: 10 },
      ]),
      hostCpus: 4,
    });
    const noise = f.filter((x) => x.code === "host_noise");
    expect(noise).toHaveLength(1);
    expect(noise[0]!.message).toMatch(/^Other work on node node2 used a mean 30 % of its 2 cores/);
    expect(noise[0]!.evidence).toMatchObject({ node: "node2" });
  });
});
