import { DockerStatsReading } from "@scalelab/scenarios/analysis";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Logger } from "../log";
import { Provisioner } from "../provisioner/types";
import { followContainerStats, ContainerRow } from "./container-stats";

const T0 = Date.UTC(2026, 10, 21, 14, 0, 0);

/**
 * A reading Docker read `readMs` after T0, one second after `prereadMs` (none: the first of its
 * stream). CPU at a quarter of a core, 1000 bytes in and 2000 out per second.
 */
const reading = (readMs: number, first = false): DockerStatsReading => {
  const cpu = (ms: number) => ({ cpu_usage: { total_usage: ms * 500_000 }, system_cpu_usage: 1e12 + ms * 2e6, online_cpus: 2 });
  const iso = (ms: number) => new Date(T0 + ms).toISOString();
  return {
    read: iso(readMs),
    preread: first ? "0001-01-01T00:00:00Z" : iso(readMs - 1000),
    cpu_stats: cpu(readMs),
    precpu_stats: first ? {} : cpu(readMs - 1000),
    memory_stats: { usage: 1_000_000 },
    networks: { eth0: { rx_bytes: readMs, tx_bytes: readMs * 2 } },
  };
};

const USAGE = { cpuPct: 50, memBytes: 1_000_000, throttledPeriods: 0, periods: 0, throttledMs: 0, netRxBps: 1000, netTxBps: 2000 };

const untilMs = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, T0 + ms - Date.now())));
const log = () =>
  ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() }) as unknown as Logger & Record<"info" | "warn", ReturnType<typeof vi.fn>>;

function follower(provisioner: Provisioner, names: string[], logger: Logger, beginAtMs = 0) {
  const ticks: { t: number; containers: string[] }[] = [];
  const f = followContainerStats({
    provisioner,
    containers: names.map((n) => ({ id: n, name: n, role: "app", node: "local" })),
    onTick: async (t, rows: ContainerRow[]) => {
      for (const r of rows) expect(r).toEqual({ container: r.container, role: "app", ...USAGE });
      ticks.push({ t, containers: rows.map((r) => r.container).sort() });
    },
    log: logger,
    reopenMs: 100,
  });
  setTimeout(() => f.begin(T0), beginAtMs);
  return {
    ticks,
    async stop() {
      const stopped = f.stop();
      await vi.advanceTimersByTimeAsync(100);
      await stopped;
    },
  };
}

describe("followContainerStats", () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it("puts a reading in the second that holds the middle of its interval: one delayed past the tick keeps its second", async () => {
    // [delivered at, read at] in ms after the load's start; each reading covers the second before it.
    const script: Record<string, [number, number][]> = {
      a: [
        [0, -200],
        [800, 800],
        [1800, 1800],
        [2800, 2800],
        [3800, 3800],
      ],
      b: [
        [0, -50],
        [950, 950],
        [2200, 1950],
        [2950, 2950],
        [3950, 3950],
      ],
    };
    const provisioner = {
      async *stats(id: string, signal: AbortSignal) {
        for (const [i, [deliver, read]] of script[id]!.entries()) {
          await untilMs(deliver);
          yield reading(read, i === 0);
        }
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
      },
    } as unknown as Provisioner;
    const f = follower(provisioner, ["a", "b"], log());
    await vi.advanceTimersByTimeAsync(4_100);
    await f.stop();
    expect(f.ticks).toEqual([
      { t: 0, containers: ["a", "b"] },
      { t: 1, containers: ["a"] },
      // b's reading of second 1 (1.95 s, covering 0.95–1.95 s) came after it was handed over: the second again, whole.
      { t: 1, containers: ["a", "b"] },
      { t: 2, containers: ["a", "b"] },
      { t: 3, containers: ["a", "b"] },
    ]);
  });

  it("reopens a stream that ended or failed, logs each change once, and its rows resume", async () => {
    let calls = 0;
    const provisioner = {
      async *stats(_id: string, signal: AbortSignal) {
        calls += 1;
        if (calls === 1) {
          for (const [i, ms] of [300, 1300].entries()) {
            await untilMs(ms);
            yield reading(ms, i === 0);
          }
          await untilMs(2000);
          return; // the engine ended the stream
        }
        if (calls === 2) throw new Error("connect ECONNREFUSED");
        for (const [i, ms] of [3300, 4300, 5300].entries()) {
          await untilMs(ms);
          yield reading(ms, i === 0);
        }
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
      },
    } as unknown as Provisioner;
    const logger = log();
    const f = follower(provisioner, ["sl-x-app-0"], logger);
    await vi.advanceTimersByTimeAsync(6_100);
    await f.stop();

    expect(calls).toBe(3);
    // The first reading of each stream has no previous one: no row for its second.
    expect(f.ticks.map((k) => k.t)).toEqual([0, 3, 4]);
    expect(logger.warn.mock.calls).toEqual([
      ["docker stats stream ended or could not be opened; retrying", { container: "sl-x-app-0", retryMs: 100 }],
    ]);
    expect(logger.info.mock.calls).toEqual([["docker stats stream reopened", { container: "sl-x-app-0" }]]);
  });

  it("keeps the readings that came before the load's start was known", async () => {
    const provisioner = {
      async *stats(_id: string, signal: AbortSignal) {
        for (const [i, ms] of [-200, 800, 1800, 2800].entries()) {
          await untilMs(ms);
          yield reading(ms, i === 0);
        }
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
      },
    } as unknown as Provisioner;
    const f = follower(provisioner, ["a"], log(), 1_500);
    await vi.advanceTimersByTimeAsync(3_600);
    await f.stop();
    expect(f.ticks.map((k) => k.t)).toEqual([0, 1, 2]);
  });
});
