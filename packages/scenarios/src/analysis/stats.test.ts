import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { containerUsage, countFromRate, errorRate, loadgenUse, perSecond, roleUse, saturatedShare, DockerStatsReading } from "./stats";

/** A stats stream recorded from Docker 20.10 (cgroup v1, 2 CPUs), one JSON reading per line, trimmed to the fields read here. */
const stream = (name: string): DockerStatsReading[] =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as DockerStatsReading);

/** Each reading's usage as the follower computes it: against the stream's previous reading. */
const usages = (readings: DockerStatsReading[]) => readings.map((r, i) => containerUsage(r, readings[i - 1]));

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
    expect(containerUsage(reading)).toEqual({ cpuPct: 20, memBytes: 10_000_000, throttledPeriods: 7, periods: 10, throttledMs: 1 });
  });

  it("has no figure for the first reading of a stream, which has no previous one", () => {
    const first = { ...reading, precpu_stats: { cpu_usage: { total_usage: 0 }, throttling_data: {} } };
    expect(containerUsage(first)).toBeUndefined();
  });

  it("has no figure for a stopped container's empty reading", () => {
    expect(containerUsage({ cpu_stats: {}, precpu_stats: {}, memory_stats: {} })).toBeUndefined();
  });

  describe("on recorded streams", () => {
    it("a testbed at a 0.2 CPU limit under wrk: a fifth of a core, throttled in every period, network both ways", () => {
      const readings = stream("docker-stats-throttled.ndjson");
      const [first, ...rest] = usages(readings);
      expect(first).toBeUndefined();
      expect(rest).toHaveLength(3);
      for (const u of rest) {
        expect(u!.cpuPct).toBeGreaterThan(19);
        expect(u!.cpuPct).toBeLessThan(21);
        // 10 periods of 100 ms per second, all throttled; cgroup v1 adds the waits up per CPU: > 1 s per second on 2 CPUs.
        expect(u!.throttledPeriods).toBe(10);
        expect(u!.periods).toBe(10);
        expect(u!.throttledMs).toBeGreaterThan(1_000);
        // Under its 64 MiB limit once the inactive page cache is left out.
        expect(u!.memBytes).toBeGreaterThan(5_000_000);
        expect(u!.memBytes).toBeLessThan(64 * 2 ** 20);
      }
      // rx 7,044,086 → 7,804,906 bytes and tx 14,712,462 → 16,302,466 between reads 1.008 s apart.
      expect(rest[0]).toMatchObject({ cpuPct: 20.23, throttledMs: 1342.6, netRxBps: 754781.7, netTxBps: 1577384.9 });
    });

    it("has CPU but no network rate without the stream's previous reading (Docker sends no previous network counters)", () => {
      const [a, b, c] = stream("docker-stats-throttled.ndjson");
      expect(containerUsage(b!)).toMatchObject({ cpuPct: 20.23 });
      expect(containerUsage(b!)).not.toHaveProperty("netRxBps");
      // Not the reading before (its `read` is not this one's `preread`): a rate over the wrong interval.
      expect(containerUsage(c!, a)).not.toHaveProperty("netRxBps");
    });

    it("a paused container: the stream goes on with frozen counters, so 0 % CPU, no throttling and no traffic", () => {
      const [first, ...rest] = usages(stream("docker-stats-paused.ndjson"));
      expect(first).toBeUndefined();
      expect(rest).toHaveLength(3);
      for (const u of rest) expect(u).toMatchObject({ cpuPct: 0, throttledPeriods: 0, throttledMs: 0, netRxBps: 0, netTxBps: 0 });
    });

    it("stop, start, kill, start, restart: no figure while stopped, on the first reading after a start, or across the restart", () => {
      const readings = stream("docker-stats-stop-start.ndjson");
      const figures = usages(readings);
      const at = (i: number) => readings[i]!.read!.slice(11, 19);
      const described = figures.map((u, i) => `${at(i)} ${u ? "figure" : "none"}`);
      expect(described).toEqual([
        "14:04:32 none", // the stream's first reading
        "14:04:33 figure",
        "14:04:34 figure",
        ...Array<string>(6).fill("00:00:00 none"), // docker stop: empty readings with Go's zero time, the stream stays open
        "14:04:41 none", // docker start: the first reading has no previous one
        "14:04:42 figure",
        "14:04:43 figure",
        "00:00:00 none", // docker kill
        "00:00:00 none",
        "14:04:46 none", // docker start
        "14:04:47 figure",
        "14:04:48 figure",
        "14:04:49 none", // docker restart: the counters start again from 0, below the previous reading's
        "14:04:50 figure",
        "14:04:51 figure",
        "14:04:52 figure",
        "14:04:53 figure",
        "14:04:54 figure",
        "14:04:55 figure",
        "14:04:56 figure",
      ]);
      for (const u of figures.filter((f) => f !== undefined)) {
        expect(u.cpuPct).toBeGreaterThanOrEqual(0);
        expect(u.netRxBps).toBeGreaterThanOrEqual(0);
        expect(u.netTxBps).toBeGreaterThanOrEqual(0);
      }
    });
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

  it("gives throttled time per container-second, the largest memory and the median network rates, over the seconds that have them", () => {
    const row = (container: string, memBytes: bigint, throttledMs: number | null, netRxBps: number | null, netTxBps: number | null) => ({
      ...r("app", container, 20, 10),
      memBytes,
      throttledMs,
      netRxBps,
      netTxBps,
    });
    const use = roleUse(
      [
        row("a0", 30_000_000n, 1300, 700_000, 1_500_000),
        row("a1", 42_000_000n, 1200, 800_000, 1_700_000),
        row("a0", 31_000_000n, 1400, 600_000, 1_600_000),
        // A second without a previous reading of the stream: no rates, still a memory reading.
        row("a1", 43_000_000n, 1100, null, null),
      ],
      { app: 0.2 },
    );
    expect(use.app).toMatchObject({
      throttledMsPerSecond: 1250,
      maxMemBytes: 43_000_000,
      medianNetRxBps: 700_000,
      medianNetTxBps: 1_600_000,
    });
  });

  it("never counts more throttled periods than elapsed: a share of the periods, old rows clamped at 10 a second", () => {
    // A reading spanning 1.1 s holds 11 periods (all throttled); a count above its periods is capped at them.
    const withPeriods = roleUse(
      [
        { ...r("app", "a0", 20, 11), periods: 11 },
        { ...r("app", "a0", 20, 10), periods: 10 },
        { ...r("app", "a0", 20, 12), periods: 9 },
      ],
      { app: 0.2 },
    );
    expect(withPeriods.app).toMatchObject({ throttledPerSecond: 10, throttledShare: 1, periodsPerSecond: 10 });
    // Rows from before the periods were stored (null): 10.1 of 10 a second was shown; each second is capped at 10.
    const old = roleUse([{ ...r("app", "a0", 20, 11), periods: null }, r("app", "a0", 20, 10), r("app", "a0", 20, 9)], { app: 0.2 });
    expect(old.app!.throttledPerSecond).toBe(9.67);
    expect(old.app).not.toHaveProperty("throttledShare");
    // Without a CPU limit no period elapses: no share of none.
    expect(roleUse([{ ...r("lb", "lb", 15), periods: 0 }], {}).lb).not.toHaveProperty("throttledShare");
  });

  it("is empty without readings", () => {
    expect(roleUse([], { app: 1 })).toEqual({});
  });
});
