import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { componentFigures } from "./registry";
import { FigureSeries, StatsReading } from "./types";
import { brokerSummary, growth, poolSummary } from "./figures";
import { ZTestbedStats } from "./service/testbed-stats";
import { ZRunCreate } from "../contract/run";

const reading = (container: string, role: string, stats: object): StatsReading => ({ container, role, stats: ZTestbedStats.parse(stats) });

const asyncRun = ZRunCreate.parse({
  topology: { service: { replicas: 2, workerPool: 8 }, downstream: { mode: "async", replicas: 1 } },
  workload: { endpoint: "cpu", vus: 4 },
});

describe("ZTestbedStats", () => {
  it("reads a partial or odd answer as zeros rather than failing", () => {
    expect(ZTestbedStats.parse({ role: "consumer", consumed: 5, pool: { busy: "x" } })).toMatchObject({
      role: "consumer",
      consumed: 5,
      requests: 0,
      pool: { size: 0, busy: 0, queued: 0, rejected: 0 },
      downstream: { mode: "none", sent: 0 },
    });
  });
});

describe("growth", () => {
  it("sums each container's increase and counts a restarted container from zero", () => {
    const previous = [reading("a", "app", { downstream: { sent: 10 } }), reading("b", "app", { downstream: { sent: 50 } })];
    const current = [reading("a", "app", { downstream: { sent: 15 } }), reading("b", "app", { downstream: { sent: 3 } })];
    expect(growth({ previous, current, baseline: [] }, "app", (s) => s.downstream.sent)).toBe(5 + 3);
  });

  it("measures the first second from the baseline taken when the load started", () => {
    const baseline = [reading("a", "app", { downstream: { sent: 100 } })];
    const current = [reading("a", "app", { downstream: { sent: 130 } })];
    expect(growth({ previous: undefined, current, baseline }, "app", (s) => s.downstream.sent)).toBe(30);
  });
});

describe("componentFigures", () => {
  it("reports pool levels, production, consumption and lag for an async topology", () => {
    const previous = [
      reading("app-0", "app", { pool: { size: 8, busy: 8, queued: 3 }, downstream: { sent: 100 } }),
      reading("app-1", "app", { pool: { size: 8, busy: 2 }, downstream: { sent: 90 } }),
      reading("c-0", "consumer", { consumed: 150 }),
    ];
    const current = [
      reading("app-0", "app", { pool: { size: 8, busy: 8, queued: 5, rejected: 1 }, downstream: { sent: 140 } }),
      reading("app-1", "app", { pool: { size: 8, busy: 4 }, downstream: { sent: 120 } }),
      reading("c-0", "consumer", { consumed: 200 }),
    ];
    expect(componentFigures({ previous, current, baseline: [] }, asyncRun)).toEqual({
      "pool.size": 16,
      "pool.busy": 12,
      "pool.queued": 5,
      "pool.rejected": 1,
      "downstream.sent": 70,
      "downstream.errors": 0,
      "broker.produced": 70,
      "broker.consumed": 50,
      "broker.lag": 140 + 120 - 200,
    });
  });

  it("reports no broker figures without async work", () => {
    const run = ZRunCreate.parse({ topology: { service: {} }, workload: { endpoint: "cpu", vus: 1 } });
    const figures = componentFigures({ previous: undefined, current: [reading("a", "app", {})], baseline: [] }, run);
    expect(Object.keys(figures).some((k) => k.startsWith("broker."))).toBe(false);
  });
});

describe("summaries", () => {
  const series: FigureSeries = [
    { t: 0, figures: { "pool.size": 16, "pool.busy": 16, "pool.queued": 40, "pool.rejected": 0, "broker.lag": 10 } },
    { t: 1, figures: { "pool.size": 16, "pool.busy": 16, "pool.queued": 80, "pool.rejected": 2, "broker.lag": 30 } },
    { t: 2, figures: { "pool.size": 16, "pool.busy": 12, "pool.queued": 0, "pool.rejected": 1, "broker.lag": 25 } },
    { t: 3, figures: { "broker.lag": 4 } },
    { t: 4, figures: { "broker.lag": 0 } },
  ];

  it("summarises the pool over the load only", () => {
    expect(poolSummary(series, 3, 900)).toEqual({ size: 16, maxBusy: 16, medianBusy: 16, maxQueued: 80, medianQueued: 40, rejected: 3 });
    expect(poolSummary([], 3, 900)).toBeUndefined();
  });

  it("says busy workers are unknown, not 0, when no reading caught a request in flight while requests were served", () => {
    // Recorded: 4 replicas behind HAProxy at 1,789 req/s; every once-a-second reading of pool.busy was 0.
    const recorded = JSON.parse(readFileSync(new URL("./fixtures/figures-busy-unsampled.json", import.meta.url), "utf8")) as {
      requests: number;
      durationSeconds: number;
      series: FigureSeries;
    };
    expect(recorded.series.every((s) => s.figures["pool.busy"] === 0)).toBe(true);
    expect(poolSummary(recorded.series, recorded.durationSeconds, recorded.requests)).toMatchObject({ maxBusy: null, medianBusy: null });
    // Nothing served: 0 busy is what happened.
    expect(poolSummary(recorded.series, recorded.durationSeconds, 0)).toMatchObject({ maxBusy: 0, medianBusy: 0 });
  });

  it("gives the lag when the load ended and how long the consumers took to catch up", () => {
    expect(brokerSummary(series, 3, { produced: 500, consumed: 475, backlogAtStart: 5 })).toEqual({
      produced: 500,
      consumed: 475,
      backlogAtStart: 5,
      maxLag: 30,
      lagAtEnd: 25,
      drainSeconds: 2,
    });
    expect(brokerSummary(series.slice(0, 4), 3, { produced: 1, consumed: 1, backlogAtStart: 0 })?.drainSeconds).toBeNull();
    expect(brokerSummary([{ t: 0, figures: { "pool.busy": 1 } }], 3, { produced: 0, consumed: 0, backlogAtStart: 0 })).toBeUndefined();
  });
});
