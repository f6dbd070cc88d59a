import { TRunSummary, TSample } from "../contract/results";
import { describe, expect, it } from "vitest";
import { compareRuns, formatRatio, overlaySeries, ratioTo, setupRows, verdictOf } from "./compare";
import { ZRunCreate } from "../contract/run";

const summary = (rps: number, p95: number, errors = 0): TRunSummary => ({
  requests: rps * 10,
  rps,
  errors,
  errorRate: errors / (rps * 10),
  latencyMs: { avg: p95 / 2, p50: p95 / 3, p90: p95 * 0.9, p95, p99: p95 * 1.5, max: p95 * 4 },
});

const sample = (t: number, requests: number, p95: number): TSample => ({
  t,
  requests,
  errors: 0,
  latencyMs: { avg: 1, p50: 1, p90: 1, p95, p99: 1, max: 1 },
});

describe("compareRuns", () => {
  // Experiment 3: one replica at 0.2 CPU vs three behind nginx.
  const rows = compareRuns([
    { id: "one", summary: summary(169, 22.6) },
    { id: "three", summary: summary(450, 9.1) },
  ]);
  const row = (key: string) => rows.find((r) => r.key === key)!;

  it("gives every figure per run with its ratio to the first run", () => {
    expect(row("rps").cells.map((c) => c.value)).toEqual([169, 450]);
    expect(row("rps").cells[1]!.ratio).toBeCloseTo(450 / 169);
    expect(formatRatio(row("rps").cells[1]!.ratio)).toBe("2.7×");
    expect(row("rps").cells[0]).toMatchObject({ ratio: 1, verdict: "baseline" });
  });

  it("judges a ratio by the figure's direction", () => {
    expect(row("rps").cells[1]!.verdict).toBe("better");
    expect(row("latency.p95").cells[1]!.verdict).toBe("better");
    expect(row("latency.p95").cells[1]!.ratio).toBeCloseTo(9.1 / 22.6);
  });

  it("takes each run's percentiles from its own summary, never combining runs", () => {
    expect(row("latency.p99").cells.map((c) => c.value)).toEqual([22.6 * 1.5, 9.1 * 1.5]);
  });

  it("reports the error rate in percent", () => {
    const [r] = compareRuns([{ id: "a", summary: summary(100, 10, 50) }]).filter((r) => r.key === "errorRate");
    expect(r!.cells[0]!.value).toBeCloseTo(5);
  });

  it("gives per role the throttled time (where the role has a CPU limit) and the median network in and out", () => {
    const withUse = (rps: number, app: Partial<NonNullable<TRunSummary["containers"]>[string]>): TRunSummary => ({
      ...summary(rps, 10),
      containers: {
        app: { containers: 3, medianCpuPct: 20, pctOfLimit: 100, throttledPerSecond: 9, ...app },
        // No CPU limit: never throttled, so no throttled-time row for it.
        lb: {
          containers: 1,
          medianCpuPct: 30,
          throttledPerSecond: 0,
          throttledMsPerSecond: 0,
          medianNetRxBps: 2_400_000,
          medianNetTxBps: 2_600_000,
        },
      },
    });
    const table = compareRuns([
      { id: "a", summary: withUse(450, { throttledMsPerSecond: 1300, medianNetRxBps: 700_000, medianNetTxBps: 1_500_000 }) },
      { id: "b", summary: withUse(600, { throttledMsPerSecond: 650, medianNetRxBps: 900_000, medianNetTxBps: 2_000_000 }) },
      // Recorded before these figures existed: empty, not zero.
      { id: "old", summary: withUse(400, {}) },
    ]);
    const cells = (key: string) => table.find((r) => r.key === key)!;
    expect(cells("app.throttledMs")).toMatchObject({ unit: "ms/s", better: "lower" });
    expect(cells("app.throttledMs").cells.map((c) => [c.value, c.verdict])).toEqual([
      [1300, "baseline"],
      [650, "better"],
      [null, "unknown"],
    ]);
    expect(cells("app.netRx")).toMatchObject({ unit: "B/s", better: "none" });
    expect(cells("app.netRx").cells.map((c) => c.value)).toEqual([700_000, 900_000, null]);
    expect(cells("app.netTx").cells.map((c) => c.value)).toEqual([1_500_000, 2_000_000, null]);
    expect(cells("lb.netTx").cells.map((c) => c.value)).toEqual([2_600_000, 2_600_000, 2_600_000]);
    expect(cells("lb.throttledMs").cells.map((c) => c.value)).toEqual([null, null, null]);
    // Beside each role's CPU rows.
    const keys = table.map((r) => r.key);
    expect(keys.indexOf("app.netRx")).toBe(keys.indexOf("app.throttled") + 2);
    expect(keys.indexOf("lb.netRx")).toBe(keys.indexOf("lb.cpu") + 2);
  });

  it("leaves runs without a summary empty instead of zero", () => {
    const [rps] = compareRuns([
      { id: "a", summary: summary(100, 10) },
      { id: "b", summary: null },
    ]);
    expect(rps!.cells[1]).toEqual({ runId: "b", value: null, ratio: null, verdict: "unknown" });
  });
});

describe("ratios", () => {
  it("handles a zero baseline", () => {
    expect(ratioTo(0, 0)).toBe(1);
    expect(ratioTo(0, 5)).toBeNull();
  });

  it("treats differences within 2 % as the same", () => {
    expect(verdictOf(1.01, "higher")).toBe("same");
    expect(verdictOf(0.5, "higher")).toBe("worse");
    expect(verdictOf(0.5, "none")).toBe("neutral");
    expect(verdictOf(0.5, "lower")).toBe("better");
  });

  it.each([
    [2.6316, "2.6×"],
    [0.4523, "0.45×"],
    [12.4, "12×"],
    [null, "—"],
    [Number.POSITIVE_INFINITY, "—"],
  ])("formats %s as %s", (ratio, text) => {
    expect(formatRatio(ratio)).toBe(text);
  });
});

describe("setupRows", () => {
  it("shows each run's configuration and flags what differs", () => {
    const a = ZRunCreate.parse({ topology: { service: { replicas: 1, cpus: 0.2 } }, workload: { endpoint: "cpu", vus: 1 } });
    const b = ZRunCreate.parse({ topology: { service: { replicas: 3 } }, workload: { endpoint: "cpu", arrivalRate: 200 } });
    const rows = setupRows([a, b]);
    const by = (key: string) => rows.find((r) => r.key === key)!;
    expect(by("replicas")).toMatchObject({ values: ["1", "3"], differs: true });
    expect(by("cpus").values).toEqual(["0.2", "unlimited"]);
    expect(by("load").values).toEqual(["1 VUs (closed)", "200 req/s (open)"]);
    expect(by("endpoint").differs).toBe(false);
  });

  it("names the passive health checks, so a retry on against a retry off is what differs", () => {
    const run = (retryNextUpstream: boolean) =>
      ZRunCreate.parse({
        topology: { balancer: { kind: "nginx", maxFails: 1, failTimeoutSeconds: 10, retryNextUpstream }, service: { replicas: 4 } },
        workload: { arrivalRate: 8 },
      });
    const none = ZRunCreate.parse({ topology: { balancer: { kind: "none" }, service: { replicas: 4 } }, workload: { arrivalRate: 8 } });
    const health = setupRows([run(true), run(false), none]).find((r) => r.key === "health")!;
    expect(health.values).toEqual([
      "max fails 1, fail timeout 10 s, retries the next replica",
      "max fails 1, fail timeout 10 s, no retry",
      "none (no balancer)",
    ]);
    expect(health.differs).toBe(true);
  });

  it("gives the fault timeline in the order it is applied and where the network-fault proxy stood", () => {
    const base = {
      topology: { balancer: { kind: "nginx" }, service: { replicas: 4 } },
      workload: { endpoint: "hostname", arrivalRate: 8, durationSeconds: 180 },
    };
    const stops = ZRunCreate.parse({
      ...base,
      faults: [
        { at: 90, action: "start", target: { role: "app", index: 2 } },
        { at: 30, action: "stop", target: { role: "app", index: 2 } },
      ],
    });
    const delay = ZRunCreate.parse({
      ...base,
      faults: [
        { at: 0, action: "delay", ms: 200, jitterMs: 20, target: { role: "app", index: 0 } },
        { at: 60, action: "clear", target: { role: "app", index: 0 } },
        { at: 70, action: "loss", percent: 5, target: { role: "lb", index: 0 } },
      ],
    });
    const none = ZRunCreate.parse(base);
    // Stored before faults existed.
    const old = { topology: none.topology, workload: none.workload };
    const rows = setupRows([stops, delay, none, old]);
    const by = (key: string) => rows.find((r) => r.key === key)!;
    expect(by("faults").values).toEqual([
      "stop app-2 @30s, start app-2 @90s",
      "delay app-0 @0s (200 ms ± 20 ms), clear app-0 @60s, loss lb-0 @70s (5 %)",
      "none",
      "none",
    ]);
    expect(by("faults").differs).toBe(true);
    expect(by("faultProxy").values).toEqual(["none", "in front of app-0, lb-0", "none", "none"]);
    expect(by("netnsHolders").values).toEqual(["keep the address of stopped app-2", "none", "none", "none"]);
    expect(setupRows([none, old]).find((r) => r.key === "faultProxy")!.differs).toBe(false);
  });
});

describe("overlaySeries", () => {
  it("aligns runs on the second and leaves missing seconds null", () => {
    const rows = overlaySeries(
      [
        { id: "a", samples: [sample(1, 10, 5), sample(0, 8, 4)] },
        { id: "b", samples: [sample(0, 20, 2)] },
      ],
      (s) => s.latencyMs?.p95 ?? null,
    );
    expect(rows).toEqual([
      { t: 0, a: 4, b: 2 },
      { t: 1, a: 5, b: null },
    ]);
  });
});
