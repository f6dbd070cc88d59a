import type { TSample } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import type { TRunView } from "~/server/runs/types";
import {
  backendSeries,
  containerCpuSeries,
  errorKindSeries,
  cpuByContainer,
  figureRows,
  imbalanceSeries,
  initialLive,
  liveReducer,
  liveLoadgenUse,
  type LiveState,
} from "./live";

const latencyMs = { avg: 2, p50: 1, p90: 3, p95: 4, p99: 5, max: 9 };
const sample = (t: number, requests = 10, backends?: Record<string, number>): TSample => ({
  t,
  requests,
  errors: 0,
  latencyMs,
  ...(backends ? { backends } : {}),
});

const run = {
  id: "r1",
  name: null,
  status: "running",
  step: "warmup",
  stepDetail: null,
  error: null,
  summary: null,
} as unknown as TRunView;

const snapshot = (samples: TSample[]): LiveState =>
  liveReducer(initialLive, {
    type: "snapshot",
    run,
    samples,
    seconds: samples.length,
    containers: [],
    cpuMedian: {},
    figures: [
      { t: 1, figures: { "broker.lag": 4 } },
      { t: 0, figures: { "broker.lag": 1 } },
    ],
    events: [{ id: "1", at: "", level: "info", step: "queued", message: "queued" }],
  });

describe("liveReducer", () => {
  it("starts from the snapshot, sorted by second", () => {
    const s = snapshot([sample(2), sample(0), sample(1)]);
    expect(s.samples.map((x) => x.t)).toEqual([0, 1, 2]);
    expect(s.log).toHaveLength(1);
  });

  it("counts the seconds measured from the snapshot's count, adding each new live second once", () => {
    // A downsampled snapshot: 2 points standing for 10 seconds.
    let s: LiveState = { ...snapshot([sample(0), sample(7)]), seconds: 10 };
    s = liveReducer(s, { type: "sample", sample: sample(10) });
    s = liveReducer(s, { type: "sample", sample: sample(10, 5) });
    s = liveReducer(s, { type: "sample", sample: sample(11) });
    expect(s.seconds).toBe(12);
    expect(s.samples.map((x) => x.t)).toEqual([0, 7, 10, 11]);
  });

  it("drops the snapshot's CPU medians once a live second of the containers came", () => {
    let s = snapshot([]);
    expect(s.cpuMedian).toEqual({});
    s = liveReducer(s, { type: "containers", t: 0, containers: [] });
    expect(s.cpuMedian).toBeNull();
  });

  it("shows an event once when it came in the snapshot and again live, in the order stored", () => {
    const event = (id: string, message: string) => ({ type: "event", id, level: "info", step: "images", message }) as const;
    // The page subscribes, then reads the stored events: those stored in between arrive twice.
    let s = liveReducer(initialLive, {
      type: "snapshot",
      run,
      samples: [],
      seconds: 0,
      containers: [],
      cpuMedian: {},
      figures: [],
      events: [
        { id: "9", at: "", level: "info", step: "queued", message: "queued took 0.1 s" },
        { id: "10", at: "", level: "info", step: "images", message: "images took 0.2 s" },
      ],
    });
    s = liveReducer(s, event("9", "queued took 0.1 s"));
    s = liveReducer(s, event("10", "images took 0.2 s"));
    s = liveReducer(s, event("12", "provision took 1.0 s"));
    // A message overtaken by a later one still lands in its place.
    s = liveReducer(s, event("11", "network took 0.3 s"));
    s = liveReducer(s, event("12", "provision took 1.0 s"));
    expect(s.log.map((l) => [l.id, l.message])).toEqual([
      ["9", "queued took 0.1 s"],
      ["10", "images took 0.2 s"],
      ["11", "network took 0.3 s"],
      ["12", "provision took 1.0 s"],
    ]);
  });

  it("keeps the newest 200 events", () => {
    let s = snapshot([]);
    for (let i = 2; i <= 250; i++) s = liveReducer(s, { type: "event", id: String(i), level: "info", step: "load", message: `e${i}` });
    expect(s.log).toHaveLength(200);
    expect(s.log[0]!.id).toBe("51");
    expect(s.log.at(-1)!.id).toBe("250");
  });

  it("appends live samples and replaces a second it already has", () => {
    let s = snapshot([sample(0), sample(1)]);
    s = liveReducer(s, { type: "sample", sample: sample(2) });
    s = liveReducer(s, { type: "sample", sample: sample(1, 99) });
    expect(s.samples.map((x) => [x.t, x.requests])).toEqual([
      [0, 10],
      [1, 99],
      [2, 10],
    ]);
  });

  it("inserts a late second in order", () => {
    let s = snapshot([sample(0), sample(2)]);
    s = liveReducer(s, { type: "sample", sample: sample(1) });
    expect(s.samples.map((x) => x.t)).toEqual([0, 1, 2]);
  });

  it("keeps the components' figures by second: stored ones sorted, live ones appended or replaced", () => {
    let s = snapshot([]);
    expect(s.figures.map((f) => f.t)).toEqual([0, 1]);
    s = liveReducer(s, { type: "figures", t: 2, figures: { "broker.lag": 9 } });
    s = liveReducer(s, { type: "figures", t: 1, figures: { "broker.lag": 5 } });
    expect(s.figures).toEqual([
      { t: 0, figures: { "broker.lag": 1 } },
      { t: 1, figures: { "broker.lag": 5 } },
      { t: 2, figures: { "broker.lag": 9 } },
    ]);
  });

  it("follows status changes and the final stored run", () => {
    let s = snapshot([]);
    s = liveReducer(s, { type: "status", status: "running", step: "running", stepDetail: "load 3/20 s", error: null });
    expect(s.run).toMatchObject({ status: "running", step: "running", stepDetail: "load 3/20 s" });
    s = liveReducer(s, { type: "run", run: { ...run, status: "succeeded", step: "done" } });
    expect(s.run?.status).toBe("succeeded");
  });

  it("fills in a fault's actual time when the worker applies it", () => {
    const faults: TRunView["faults"] = [
      { at: 3, action: "stop", target: { role: "app", index: 1 } },
      { at: 7, action: "start", target: { role: "app", index: 1 } },
    ];
    let s = liveReducer(initialLive, {
      type: "snapshot",
      run: { ...run, faults },
      samples: [],
      seconds: 0,
      containers: [],
      cpuMedian: {},
      figures: [],
      events: [],
    });
    s = liveReducer(s, { type: "fault", index: 1, actual: { atMs: 7012, lagMs: 12, tookMs: 290 } });
    expect(s.run?.faults.map((f) => f.actual)).toEqual([undefined, { atMs: 7012, lagMs: 12, tookMs: 290 }]);
    // One the run does not have (a stale message) changes nothing.
    expect(liveReducer(s, { type: "fault", index: 5, actual: { atMs: 1, lagMs: 0, tookMs: 0 } })).toBe(s);
  });
});

describe("series", () => {
  it("puts each container's CPU in its own column", () => {
    const rows = containerCpuSeries([
      {
        t: 0,
        containers: [
          { container: "b", role: "app", cpuPct: 10, memBytes: 0, throttledPeriods: 0 },
          { container: "a", role: "lb", cpuPct: 1, memBytes: 0, throttledPeriods: 0 },
        ],
      },
    ]);
    expect(rows).toEqual({ keys: ["a", "b"], rows: [{ t: 0, a: 1, b: 10 }] });
  });

  it("charts every request per backend where samples carry backendStats, the balancer's own answers and the unanswered last", () => {
    const stat = (requests: number, errors = {}) => ({ requests, errors, latencyMs: null });
    const stopped: TSample = {
      ...sample(1, 10, { "app-0": 5 }),
      errors: 5,
      backendStats: { "app-0": stat(5), balancer: stat(3, { "502": 3 }), "no answer": stat(2, { conn: 2 }) },
      errorKinds: { "502": 3, conn: 2 },
    };
    const before: TSample = {
      ...sample(0, 10, { "app-0": 5, "app-1": 5 }),
      backendStats: { "app-1": stat(5), "app-0": stat(5) },
      errorKinds: {},
    };
    const { keys, rows } = backendSeries([before, stopped]);
    expect(keys).toEqual(["app-0", "app-1", "balancer", "no answer"]);
    expect(rows).toEqual([
      { t: 0, "app-0": 5, "app-1": 5, balancer: 0, "no answer": 0 },
      { t: 1, "app-0": 5, "app-1": 0, balancer: 3, "no answer": 2 },
    ]);
    expect(errorKindSeries([before, stopped])).toEqual({
      keys: ["502", "conn"],
      rows: [
        { t: 0, "502": 0, conn: 0 },
        { t: 1, "502": 3, conn: 2 },
      ],
    });
    expect(errorKindSeries([sample(0)])).toEqual({ keys: [], rows: [] });
  });

  it("keeps a second in which no backend answered as zeros rather than a gap", () => {
    expect(backendSeries([sample(0, 2, { "app-0": 2 }), sample(1, 0), sample(2, 1, { "app-0": 1 })]).rows).toEqual([
      { t: 0, "app-0": 2 },
      { t: 1, "app-0": 0 },
      { t: 2, "app-0": 1 },
    ]);
    expect(backendSeries([sample(0)])).toEqual({ keys: [], rows: [] });
  });

  it("fills seconds in which a backend got nothing with zero", () => {
    expect(backendSeries([sample(0, 2, { "app-0": 2 }), sample(1, 1, { "app-1": 1 })])).toEqual({
      keys: ["app-0", "app-1"],
      rows: [
        { t: 0, "app-0": 2, "app-1": 0 },
        { t: 1, "app-0": 0, "app-1": 1 },
      ],
    });
  });

  it("charts only the seconds that have one of the figures, with a gap where one is missing", () => {
    const rows = figureRows(
      [
        { t: 0, figures: { "pool.busy": 2 } },
        { t: 1, figures: { "pool.busy": 3, "broker.lag": 10 } },
        { t: 2, figures: { "broker.lag": 4 } },
      ],
      ["broker.lag", "broker.produced"],
    );
    expect(rows).toEqual([
      { t: 1, "broker.lag": 10, "broker.produced": null },
      { t: 2, "broker.lag": 4, "broker.produced": null },
    ]);
  });

  it("gives each container's CPU now, or its median over the run", () => {
    const second = (t: number, app: number, lb: number) => ({
      t,
      containers: [
        { container: "app", role: "app", cpuPct: app, memBytes: 0, throttledPeriods: 0 },
        { container: "lb", role: "lb", cpuPct: lb, memBytes: 0, throttledPeriods: 0 },
      ],
    });
    const seconds = [second(0, 10, 1), second(1, 30, 2), second(2, 20, 9)];
    expect(cpuByContainer(seconds, "latest")).toEqual({ app: 20, lb: 9 });
    expect(cpuByContainer(seconds, "run")).toEqual({ app: 20, lb: 2 });
    expect(cpuByContainer([], "latest")).toEqual({});
  });

  it("measures the load generator against its CPU limit", () => {
    const second = (cpuPct: number) => ({
      t: 0,
      containers: [{ container: "lg", role: "loadgen", cpuPct, memBytes: 0, throttledPeriods: 0 }],
    });
    expect(liveLoadgenUse([second(95), second(85)], 1)).toEqual({ cpus: 1, medianCpuPct: 90, saturated: true });
    expect(liveLoadgenUse([], 1)).toBeUndefined();
  });
});

describe("imbalanceSeries", () => {
  it("is max/mean over every replica each second, a replica at 0 included, and null when nothing was answered", () => {
    const s = (t: number, backends?: Record<string, number>): TSample => ({
      t,
      requests: 8,
      errors: 0,
      latencyMs: null,
      ...(backends && { backends }),
    });
    expect(imbalanceSeries([s(0, { "app-0": 2, "app-1": 2, "app-2": 2, "app-3": 2 }), s(1, { "app-0": 4, "app-1": 4 }), s(2)], 4)).toEqual([
      { t: 0, imbalance: 1 },
      { t: 1, imbalance: 2 },
      { t: 2, imbalance: null },
    ]);
  });

  it("takes the server's imbalance of a downsampled sample, whose counts are extremes of different seconds", () => {
    const downsampled: TSample = { t: 0, requests: 8, errors: 0, latencyMs: null, backends: { "app-0": 6, "app-1": 1 }, imbalance: 1.1 };
    expect(imbalanceSeries([downsampled], 2)).toEqual([{ t: 0, imbalance: 1.1 }]);
  });
});
