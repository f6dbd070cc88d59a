import { describe, expect, it } from "vitest";
import { containerUsage, countFromRate, errorRate, loadgenUse, perSecond, roleUse, saturatedShare } from "./stats";

describe("summary math", () => {
  it("computes rates and guards zero", () => {
    expect(perSecond(1891, 4.023)).toBe(470.047);
    expect(perSecond(10, 0)).toBe(0);
    expect(errorRate(29, 590)).toBe(0.049153);
    expect(errorRate(0, 0)).toBe(0);
  });

  it("recovers a count from k6's truncated rate", () => {
    expect(countFromRate(0.04915, 590)).toBe(29);
    expect(countFromRate(1, 4)).toBe(4);
    expect(countFromRate(0, 0)).toBe(0);
  });
});

describe("containerUsage", () => {
  // Shape and magnitudes of a cgroup v1 reading from Docker 20.10 on a 2-CPU host.
  const reading = {
    read: "2026-11-21T00:50:01.000Z",
    cpu_stats: {
      cpu_usage: { total_usage: 5_200_000_000, percpu_usage: [2_600_000_000, 2_600_000_000] },
      system_cpu_usage: 102_000_000_000,
      online_cpus: 2,
      throttling_data: { periods: 120, throttled_periods: 40, throttled_time: 9_000_000 },
    },
    precpu_stats: {
      cpu_usage: { total_usage: 5_000_000_000 },
      system_cpu_usage: 100_000_000_000,
      online_cpus: 2,
      throttling_data: { periods: 110, throttled_periods: 33, throttled_time: 8_000_000 },
    },
    memory_stats: { usage: 12_000_000, stats: { total_inactive_file: 2_000_000, cache: 3_000_000 } },
  };

  it("follows docker stats: Δcpu / Δsystem × online CPUs × 100, memory without inactive cache", () => {
    expect(containerUsage(reading)).toEqual({ cpuPct: 20, memBytes: 10_000_000, throttledPeriods: 7 });
  });

  it("has no figure for the first reading of a stream, which has no previous one", () => {
    const first = { ...reading, precpu_stats: { cpu_usage: { total_usage: 0 }, throttling_data: {} } };
    expect(containerUsage(first)).toBeUndefined();
  });

  it("has no figure for a stopped container's empty reading", () => {
    expect(containerUsage({ cpu_stats: {}, precpu_stats: {}, memory_stats: {} })).toBeUndefined();
  });
});

describe("saturatedShare", () => {
  it("counts the seconds at or above 90 % of the CPU limit", () => {
    expect(saturatedShare([95, 99, 40, 81], 1)).toBe(0.75);
    expect(saturatedShare([95, 99], 2)).toBe(0);
    expect(saturatedShare([], 1)).toBe(0);
  });
});

describe("loadgenUse", () => {
  it("gives the median CPU relative to the limit and flags a generator busy in most seconds", () => {
    expect(loadgenUse([85, 86, 84, 30], 1)).toEqual({ cpus: 1, medianCpuPct: 84.5, saturated: true });
    expect(loadgenUse([170, 172, 60], 2)).toEqual({ cpus: 2, medianCpuPct: 85, saturated: true });
    expect(loadgenUse([40, 50, 85], 1)).toEqual({ cpus: 1, medianCpuPct: 50, saturated: false });
  });

  it("is undefined without readings", () => {
    expect(loadgenUse([], 1)).toBeUndefined();
  });
});

describe("roleUse", () => {
  const r = (role: string, container: string, cpuPct: number, throttledPeriods = 0) => ({ role, container, cpuPct, throttledPeriods });

  it("gives per-role medians, relative to the limit where there is one, and throttling per container-second", () => {
    const use = roleUse([r("app", "a0", 20, 10), r("app", "a1", 19, 8), r("app", "a0", 21, 9), r("lb", "lb", 12), r("lb", "lb", 10)], {
      app: 0.2,
      lb: undefined,
    });
    expect(use).toEqual({
      app: { containers: 2, medianCpuPct: 20, pctOfLimit: 100, throttledPerSecond: 9 },
      lb: { containers: 1, medianCpuPct: 11, throttledPerSecond: 0 },
    });
  });

  it("is empty without readings", () => {
    expect(roleUse([], { app: 1 })).toEqual({});
  });
});
