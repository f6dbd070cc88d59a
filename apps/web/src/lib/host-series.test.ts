import { describe, expect, it } from "vitest";
import { hostRows } from "./host-series";

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
