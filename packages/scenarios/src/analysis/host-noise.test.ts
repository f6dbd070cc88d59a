import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  HOST_NOISE,
  hostBusyPct,
  hostNoiseSummary,
  hostSeconds,
  hostSecondsByNode,
  isHostNoisy,
  NODE_CPU_PROBE_SCRIPT,
  parseProbeLine,
  parseProcStat,
  PROBE_INTERVAL_MS,
  secondsFromSamples,
  TCounterSample,
  THostReading,
} from "./host-noise";

const stat = (name: string) => readFileSync(new URL(`./fixtures/host/${name}`, import.meta.url), "utf8");

describe("/proc/stat", () => {
  // Recorded on the 2-core development machine one second apart, a shell loop spinning beside other work.
  const a = parseProcStat(stat("proc-stat-a.txt"));
  const b = parseProcStat(stat("proc-stat-b.txt"));

  it("reads the aggregate cpu line: busy = user + nice + system + steal, of every tick; the cpuN lines count the cores", () => {
    expect(a).toEqual({ busy: 2301023 + 14208 + 575552 + 586, total: 2891369 + 1579303 + 14272 + 0 + 100577, cores: 2 });
  });

  it("gives the host's busy CPU between two readings in % of one core: both cores busy is 200", () => {
    expect(hostBusyPct(a, b)).toBe(200);
    expect(hostBusyPct(b, b)).toBeUndefined();
  });

  it("does not count interrupt time as busy: the kernel carrying the run's own packets, charged to no container", () => {
    const before = parseProcStat("cpu  100 0 100 700 0 0 0 0 0 0\ncpu0 1 0 0 0\ncpu1 1 0 0 0\n");
    const after = parseProcStat("cpu  150 0 150 750 0 10 40 0 0 0\ncpu0 1 0 0 0\ncpu1 1 0 0 0\n");
    // Busy +100 (user 50, system 50) of +200 ticks (idle 50, irq 10, softirq 40 among them): half of 2 cores.
    expect(hostBusyPct(before, after)).toBe(100);
  });

  it("counts steal as busy and guest once (it is inside user)", () => {
    const before = parseProcStat("cpu  100 0 100 700 0 0 0 0 50 0\ncpu0 1 0 0 0\ncpu1 1 0 0 0\ncpu2 1 0 0 0\ncpu3 1 0 0 0\n");
    const after = parseProcStat("cpu  200 0 150 1000 50 0 0 100 100 0\ncpu0 1 0 0 0\ncpu1 1 0 0 0\ncpu2 1 0 0 0\ncpu3 1 0 0 0\n");
    // Busy +250 (user 100, system 50, steal 100) of +600: 41.67 % of 4 cores.
    expect(hostBusyPct(before, after)).toBe(166.67);
  });

  it("refuses a text without the cpu line, naming what is missing", () => {
    expect(() => parseProcStat("intr 1 2 3\n")).toThrow(/no aggregate cpu line/);
    expect(() => parseProcStat("cpu  1 x 3 4\ncpu0 1 2 3 4\n")).toThrow(/cannot read the cpu line/);
  });
});

describe("the outside share", () => {
  const host = (t: number, hostCpuPct: number, workerCpuPct = 2): THostReading => ({ t, cores: 2, hostCpuPct, workerCpuPct });
  const c = (t: number, container: string, cpuPct: number) => ({ t, container, cpuPct });

  it("is the host's CPU less the run's containers and the worker, never below 0", () => {
    const seconds = hostSeconds([host(0, 150), host(1, 80)], [c(0, "app-0", 60), c(0, "k6", 30), c(1, "app-0", 60), c(1, "k6", 30)]);
    expect(seconds).toEqual([
      { t: 0, cores: 2, hostCpuPct: 150, runCpuPct: 90, workerCpuPct: 2, otherCpuPct: 58 },
      // Docker's and the host's seconds do not line up to the tick: a second can read a little more inside than the host had.
      { t: 1, cores: 2, hostCpuPct: 80, runCpuPct: 90, workerCpuPct: 2, otherCpuPct: 0 },
    ]);
  });

  it("on separate machines is each node's CPU less the containers placed on that node only, marked with the node", () => {
    const placed = { "sl-1-app-0": "node1", "sl-1-app-1": "node2", "sl-1-loadgen-0": "node2" };
    const rows = [c(0, "sl-1-app-0", 60), c(0, "sl-1-app-1", 50), c(0, "sl-1-loadgen-0", 30)];
    const remote = (hostCpuPct: number) => [{ t: 0, cores: 4, hostCpuPct, workerCpuPct: 0 }];
    expect(hostSecondsByNode({ node1: remote(100), node2: remote(90), node3: remote(5) }, rows, placed)).toEqual({
      node1: [{ t: 0, cores: 4, hostCpuPct: 100, runCpuPct: 60, workerCpuPct: 0, otherCpuPct: 40, node: "node1" }],
      node2: [{ t: 0, cores: 4, hostCpuPct: 90, runCpuPct: 80, workerCpuPct: 0, otherCpuPct: 10, node: "node2" }],
      // No reading of any of the run's containers on the node in that second: unknown, as on one host.
      node3: [{ t: 0, cores: 4, hostCpuPct: 5, runCpuPct: 0, workerCpuPct: 0, otherCpuPct: null, node: "node3" }],
    });
  });

  it("is unknown in a second that lacks a container's reading it has before and after (not a false spike)", () => {
    const rows = [c(0, "app-0", 60), c(0, "k6", 30), c(1, "k6", 30), c(2, "app-0", 60), c(2, "k6", 30)];
    expect(hostSeconds([host(0, 100), host(1, 100), host(2, 100)], rows).map((s) => s.otherCpuPct)).toEqual([8, null, 8]);
    // A container stopped for good (a fault) is not missing: it used nothing.
    expect(
      hostSeconds([host(0, 100), host(1, 100)], [c(0, "app-0", 60), c(0, "k6", 30), c(1, "k6", 30)]).map((s) => s.otherCpuPct),
    ).toEqual([8, 68]);
  });

  it("sums up as % of the host: mean, p95, max, busy seconds, the mean in cores and the worker's own", () => {
    const seconds = [0, 10, 20, 100, 100, 100].map((other, t) => ({
      t,
      cores: 2,
      hostCpuPct: 0,
      runCpuPct: 0,
      workerCpuPct: 4,
      otherCpuPct: other,
    }));
    expect(hostNoiseSummary([...seconds, { ...seconds[0]!, t: 6, otherCpuPct: null }])).toEqual({
      cores: 2,
      seconds: 6,
      busySeconds: 3,
      meanPct: 27.5,
      p95Pct: 50,
      maxPct: 50,
      meanCores: 0.55,
      workerMeanPct: 2,
    });
    expect(hostNoiseSummary([])).toBeUndefined();
  });

  it("is noise from a mean of 20 % of the host, or in a burst of 3 seconds (and a tenth of the load) at 40 % or more", () => {
    const n = { cores: 2, seconds: 30, busySeconds: 0, meanPct: 0, p95Pct: 0, maxPct: 0, meanCores: 0, workerMeanPct: 1 };
    expect(HOST_NOISE).toMatchObject({ meanPct: 20, busySecondPct: 40, burstSeconds: 3 });
    expect(isHostNoisy({ ...n, meanPct: 19.9 })).toBe(false);
    expect(isHostNoisy({ ...n, meanPct: 20 })).toBe(true);
    expect(isHostNoisy({ ...n, busySeconds: 2 })).toBe(false);
    expect(isHostNoisy({ ...n, busySeconds: 3 })).toBe(true);
    expect(isHostNoisy({ ...n, seconds: 60, busySeconds: 5 })).toBe(false);
    expect(isHostNoisy(undefined)).toBe(false);
  });
});

describe("a node's probe", () => {
  it("prints a line of the time, the cores and the aggregate cpu line every interval, forking nothing", () => {
    // The script itself, in bash, for a little over two intervals.
    const run = spawnSync("timeout", [String((PROBE_INTERVAL_MS * 2.5) / 1000), "bash", "-c", NODE_CPU_PROBE_SCRIPT], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const samples = run.stdout.trim().split("\n").map(parseProbeLine);
    expect(samples.length).toBeGreaterThanOrEqual(2);
    for (const x of samples) {
      expect(x?.counters.cores).toBe(availableParallelism());
      expect(Math.abs(x!.atMs - Date.now())).toBeLessThan(10_000);
    }
    expect(samples[1]!.atMs - samples[0]!.atMs).toBeGreaterThanOrEqual(PROBE_INTERVAL_MS * 0.9);
  });

  it("reads its lines; anything else is not a sample", () => {
    expect(parseProbeLine("1764170000.250000 2 cpu  100 0 50 850 0 0 0 0 0 0")).toEqual({
      atMs: 1764170000250,
      counters: { busy: 150, total: 1000, cores: 2 },
    });
    expect(parseProbeLine("1764170000,250000 4 cpu  1 0 1 2")?.atMs).toBe(1764170000250);
    for (const other of ["", "bash: warning", "1764170000.25 0 cpu  1 0 1 2", "1764170000.25 2 cpu  x"])
      expect(parseProbeLine(other)).toBeUndefined();
  });

  it("gives each second of the load from the counters interpolated at its bounds, half a core busy here", () => {
    // A 4-core node, samples every 250 ms from 100 ms before the load, 2 busy ticks of every 4.
    const start = 1_000_000;
    const samples: TCounterSample[] = Array.from({ length: 14 }, (_, i) => ({
      atMs: start - 100 + i * 250,
      counters: { busy: i * 50, total: i * 100, cores: 4 },
    }));
    const seconds = secondsFromSamples(samples, start, 4);
    // 3 whole seconds spanned (the samples end at 3.15 s): each 50 % of the ticks, 200 % of one core.
    expect(seconds).toEqual([0, 1, 2].map((t) => ({ t, cores: 4, hostCpuPct: 200, workerCpuPct: 0 })));
    expect(secondsFromSamples([], start, 3)).toEqual([]);
  });
});
