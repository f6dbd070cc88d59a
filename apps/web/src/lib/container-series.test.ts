import type { PlannedContainer } from "@scalelab/scenarios/plan";
import { describe, expect, it } from "vitest";
import { limitLines, resourceSeries } from "./container-series";

const stat = (container: string, role: string, netRxBps?: number) => ({
  container,
  role,
  cpuPct: 20,
  memBytes: 1e6,
  throttledPeriods: 10,
  throttledMs: 1300,
  ...(netRxBps !== undefined && { netRxBps }),
});

describe("resourceSeries", () => {
  const seconds = [
    { t: 0, containers: [stat("sl-x-app-0", "app", 700), stat("sl-x-app-1", "app", 650), stat("sl-x-lb", "lb", 1400)] },
    // app-1 stopped: no reading that second.
    { t: 1, containers: [stat("sl-x-app-0", "app", 900), stat("sl-x-lb", "lb", 900)] },
    // A row recorded before network figures existed.
    { t: 2, containers: [stat("sl-x-app-0", "app"), stat("sl-x-app-1", "app", 500), stat("sl-x-lb", "lb", 1000)] },
  ];

  it("gives a column per container and leaves a gap (null) where a second has no reading of it", () => {
    const short = (c: string) => c.replace("sl-x-", "");
    expect(resourceSeries(seconds, "netRxBps", { name: short })).toEqual({
      keys: ["app-0", "app-1", "lb"],
      rows: [
        { t: 0, "app-0": 700, "app-1": 650, lb: 1400 },
        { t: 1, "app-0": 900, "app-1": null, lb: 900 },
        { t: 2, "app-0": null, "app-1": 500, lb: 1000 },
      ],
    });
  });

  it("draws no line for a container without the figure in any second (recorded before it was)", () => {
    const old = [{ t: 0, containers: [stat("a", "app"), stat("b", "app", 10)] }];
    expect(resourceSeries(old, "netRxBps").keys).toEqual(["b"]);
  });

  it("keeps only the containers asked for", () => {
    expect(resourceSeries(seconds, "cpuPct", { only: (c) => c.role === "lb" })).toEqual({
      keys: ["sl-x-lb"],
      rows: [
        { t: 0, "sl-x-lb": 20 },
        { t: 1, "sl-x-lb": 20 },
        { t: 2, "sl-x-lb": 20 },
      ],
    });
  });
});

describe("limitLines", () => {
  const planned = (name: string, role: string, cpus?: number, memoryBytes?: number) =>
    ({ name, role, cpus, memoryBytes }) as PlannedContainer;
  const plan = [planned("a0", "app", 0.2, 64e6), planned("a1", "app", 0.2, 64e6), planned("lb", "lb"), planned("lg", "loadgen", 1)];

  it("draws one line per distinct limit among the containers shown, named by their roles", () => {
    expect(limitLines(plan, new Set(["a0", "a1", "lb", "lg"]), "cpu")).toEqual([
      { value: 20, label: "app limit" },
      { value: 100, label: "loadgen limit" },
    ]);
    expect(limitLines(plan, new Set(["lb", "lg"]), "cpu")).toEqual([{ value: 100, label: "loadgen limit" }]);
    expect(limitLines(plan, new Set(["a0", "lb"]), "memory")).toEqual([{ value: 64e6, label: "app limit" }]);
  });
});
