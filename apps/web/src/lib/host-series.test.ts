import { describe, expect, it } from "vitest";
import { hostRows, sampleNodes, samplesOfNode } from "./host-series";

describe("hostRows", () => {
  it("gives each part of the host's CPU as a share of the host, an unknown outside figure as a gap", () => {
    expect(
      hostRows([
        { t: 0, cores: 2, hostCpuPct: 150, runCpuPct: 90, workerCpuPct: 2, otherCpuPct: 58 },
        { t: 1, cores: 2, hostCpuPct: 100, runCpuPct: 30, workerCpuPct: 2, otherCpuPct: null },
      ]),
    ).toEqual([
      { t: 0, run: 45, worker: 1, other: 29 },
      { t: 1, run: 15, worker: 1, other: null },
    ]);
  });
});

describe("host samples per node", () => {
  const at = (t: number, node?: string) => ({
    t,
    cores: 2,
    hostCpuPct: 50,
    runCpuPct: 20,
    workerCpuPct: 0,
    otherCpuPct: 30,
    ...(node && { node }),
  });
  it("lists the nodes in their order and picks one node's seconds", () => {
    const samples = [at(0, "node1"), at(1, "node1"), at(0, "node2")];
    expect(sampleNodes(samples)).toEqual(["node1", "node2"]);
    expect(samplesOfNode(samples, "node2")).toEqual([at(0, "node2")]);
    expect(sampleNodes([at(0), at(1)])).toEqual(["local"]);
  });
});
