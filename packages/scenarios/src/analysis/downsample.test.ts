import { describe, expect, it } from "vitest";
import { TContainerSample, TFigureSample } from "../contract/messages";
import { TSample } from "../contract/results";
import { downsampleContainers, downsampleContainerSeconds, downsampleFigures, downsampleRows, downsampleSamples } from "./downsample";

const hour = (f: (t: number) => number) => Array.from({ length: 3600 }, (_, t) => ({ t, v: f(t) }));

describe("downsampleRows", () => {
  it("keeps a 1-second spike and a 1-second dip of a long series", () => {
    const rows = hour((t) => (t === 1234 ? 9000 : t === 2345 ? 0 : 1000 + (t % 7)));
    const out = downsampleRows(rows, 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(Math.max(...out.map((r) => r.v))).toBe(9000);
    expect(Math.min(...out.map((r) => r.v))).toBe(0);
    // The primary-less spike stays within its bucket's seconds.
    const spike = out.find((r) => r.v === 9000)!;
    expect(Math.abs(spike.t - 1234)).toBeLessThan(8);
  });

  it("places the two rows of a bucket at the primary column's extremes, in time order", () => {
    const rows = [
      { t: 0, v: 5, w: 1 },
      { t: 1, v: 9, w: 7 },
      { t: 2, v: 1, w: 3 },
      { t: 3, v: 5, w: 2 },
    ];
    const out = downsampleRows(rows, 2, { primary: "v" });
    expect(out).toEqual([
      { t: 1, v: 9, w: 1 },
      { t: 2, v: 1, w: 7 },
    ]);
  });

  it("gives a bucket count of at most points / 2 and at most points rows", () => {
    const rows = hour((t) => Math.sin(t));
    for (const points of [100, 101, 999, 2000, 3599]) {
      const out = downsampleRows(rows, points);
      expect(out.length).toBeLessThanOrEqual(points);
      // Every bucket but a short last one gives two rows: most of the budget is used.
      expect(out.length).toBeGreaterThan(points / 2);
    }
  });

  it("returns the rows as they are when there are no more than asked", () => {
    const rows = hour((t) => t).slice(0, 100);
    expect(downsampleRows(rows, 100)).toEqual(rows);
    expect(downsampleRows([], 100)).toEqual([]);
  });

  it("keeps the time order and each bucket's extremes across gaps of missing seconds", () => {
    const rows = hour((t) => t % 10).filter((r) => r.t < 1000 || r.t >= 2000);
    const out = downsampleRows(rows, 200);
    expect(out.map((r) => r.t)).toEqual([...out.map((r) => r.t)].sort((a, b) => a - b));
    // Nothing invented in the seconds that had no row.
    expect(out.filter((r) => r.t >= 1000 && r.t < 2000)).toEqual([]);
    expect(new Set(out.map((r) => r.v))).toEqual(new Set([0, 9]));
  });

  it("keeps a gap as null when a bucket has no value, and ignores nulls beside values", () => {
    const rows = Array.from({ length: 400 }, (_, t) => ({ t, v: t >= 100 && t < 200 ? null : t === 50 ? null : 5 + (t % 2) }));
    const out = downsampleRows(rows, 100);
    // Buckets of 8 s from 0: those from 104 to 191 lie wholly in the gap.
    const inGap = out.filter((r) => r.t >= 104 && r.t < 192);
    expect(inGap.length).toBeGreaterThan(0);
    expect(inGap.every((r) => r.v === null)).toBe(true);
    expect(out.filter((r) => r.t < 100).every((r) => r.v === 5 || r.v === 6)).toBe(true);
  });

  it("takes the maximum of a max column and the weighted mean of a mean column", () => {
    const rows = [
      { t: 0, n: 1, p99: 10, avg: 100 },
      { t: 1, n: 3, p99: 50, avg: 20 },
      { t: 2, n: 0, p99: 20, avg: null },
      { t: 3, n: 4, p99: 30, avg: 10 },
    ];
    const out = downsampleRows(rows, 2, {
      primary: "n",
      rule: (k) => (k === "p99" ? "max" : k === "avg" ? { mean: true, weight: "n" } : "minmax"),
    });
    expect(out.map((r) => r.p99)).toEqual([50, 50]);
    expect(out.map((r) => r.avg)).toEqual([(100 * 1 + 20 * 3 + 10 * 4) / 8, (100 * 1 + 20 * 3 + 10 * 4) / 8]);
    expect(out.map((r) => r.n)).toEqual([0, 4]);
  });

  it("refuses a count below 2", () => {
    expect(() =>
      downsampleRows(
        hour(() => 1),
        1,
      ),
    ).toThrow(/points/);
  });
});

const sample = (t: number, requests: number, extra: Partial<TSample> = {}): TSample => ({
  t,
  requests,
  errors: 0,
  latencyMs: { avg: 2, p50: 1, p90: 3, p95: 4, p99: 5, max: 9 },
  ...extra,
});

describe("downsampleSamples", () => {
  it("keeps the throughput's min and max, the worst latency second and an error spike", () => {
    const samples = Array.from({ length: 3600 }, (_, t) =>
      t === 100
        ? sample(t, 800, { errors: 300, latencyMs: { avg: 40, p50: 30, p90: 60, p95: 80, p99: 400, max: 900 } })
        : t === 3000
          ? sample(t, 5000)
          : t === 200
            ? sample(t, 900, { latencyMs: null })
            : sample(t, 1000),
    );
    const out = downsampleSamples(samples, 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(Math.max(...out.map((s) => s.requests))).toBe(5000);
    expect(Math.min(...out.map((s) => s.requests))).toBe(800);
    expect(Math.max(...out.map((s) => s.errors))).toBe(300);
    expect(Math.max(...out.map((s) => s.latencyMs?.p99 ?? 0))).toBe(400);
    // A second without latency beside seconds with it does not blank its bucket.
    expect(out.every((s) => s.latencyMs !== null)).toBe(true);
  });

  it("keeps per-backend counts and error kinds as minimum and maximum", () => {
    const samples = Array.from({ length: 500 }, (_, t) =>
      sample(t, 100, {
        backends: { "app-0": 50, "app-1": t === 250 ? 0 : 50 },
        errorKinds: t === 300 ? { "502": 12 } : {},
        backendStats: { "app-0": { requests: 50, errors: {}, latencyMs: { avg: 1, max: t === 400 ? 70 : 3 } } },
        imbalance: t === 250 ? 2 : 1,
      }),
    );
    const out = downsampleSamples(samples, 100);
    expect(Math.min(...out.map((s) => s.backends?.["app-1"] ?? 99))).toBe(0);
    expect(Math.max(...out.map((s) => s.errorKinds?.["502"] ?? 0))).toBe(12);
    expect(Math.max(...out.map((s) => s.backendStats?.["app-0"]?.latencyMs?.max ?? 0))).toBe(70);
    expect(Math.max(...out.map((s) => s.imbalance ?? 0))).toBe(2);
  });

  it("returns the samples as they are when there are fewer than asked", () => {
    const samples = [sample(0, 1), sample(1, 2)];
    expect(downsampleSamples(samples, 100)).toEqual(samples);
  });
});

describe("downsampleContainers", () => {
  it("downsamples each container's series on its own and keeps a CPU spike and a memory peak", () => {
    const rows: TContainerSample[] = [];
    for (let t = 0; t < 3600; t++)
      for (const c of ["sl-a-app-0", "sl-a-lb-0"])
        rows.push({
          t,
          container: c,
          role: c.includes("app") ? "app" : "lb",
          cpuPct: c.includes("app") && t === 777 ? 199 : 50,
          memBytes: c.includes("lb") && t === 1500 ? 9e8 : 1e8,
          throttledPeriods: 0,
          ...(c.includes("app") && { throttledMs: t === 20 ? 80 : 0 }),
        });
    const out = downsampleContainers(rows, 500);
    const app = out.filter((r) => r.container === "sl-a-app-0");
    const lb = out.filter((r) => r.container === "sl-a-lb-0");
    expect(app.length).toBeLessThanOrEqual(500);
    expect(lb.length).toBeLessThanOrEqual(500);
    expect(Math.max(...app.map((r) => r.cpuPct))).toBe(199);
    expect(Math.max(...app.map((r) => r.throttledMs ?? 0))).toBe(80);
    expect(Math.max(...lb.map((r) => r.memBytes))).toBe(9e8);
    // The lb never had throttledMs: it stays absent, not null.
    expect(lb.every((r) => !("throttledMs" in r))).toBe(true);
    expect(lb.every((r) => r.role === "lb")).toBe(true);
    for (let i = 1; i < out.length; i++) expect(out[i]!.t).toBeGreaterThanOrEqual(out[i - 1]!.t);
  });
});

describe("downsampleContainerSeconds", () => {
  it("gives every container the same seconds, keeps a spike and leaves a stopped container out of the buckets it missed", () => {
    const stat = (container: string, cpuPct: number) => ({ container, role: "app", cpuPct, memBytes: 1e8, throttledPeriods: 0 });
    const seconds = Array.from({ length: 3600 }, (_, t) => ({
      t,
      containers: [
        stat("sl-a-app-0", t === 900 ? 190 : 40 + (t % 3)),
        // app-1 was stopped from 2000 to 2999.
        ...(t >= 2000 && t < 3000 ? [] : [stat("sl-a-app-1", 30 + (t % 4))]),
      ],
    }));
    const out = downsampleContainerSeconds(seconds, 600);
    expect(out.length).toBeLessThanOrEqual(600);
    const has = (name: string) => out.filter((s) => s.containers.some((c) => c.container === name));
    // Both containers at every second the app-1 was running: no gaps from misaligned points.
    expect(has("sl-a-app-0")).toHaveLength(out.length);
    expect(has("sl-a-app-1").length).toBeGreaterThan(out.length * 0.6);
    // Buckets of 12 s: those from 2004 to 2987 lie wholly in the stop.
    expect(has("sl-a-app-1").every((s) => s.t < 2004 || s.t >= 2988)).toBe(true);
    expect(Math.max(...out.flatMap((s) => s.containers.map((c) => c.cpuPct)))).toBe(190);
    expect(out[0]!.containers[0]).toMatchObject({ container: "sl-a-app-0", role: "app", memBytes: 1e8, throttledPeriods: 0 });
  });
});

describe("downsampleFigures", () => {
  it("keeps each figure's extremes and leaves a figure absent where it had no value", () => {
    const rows: TFigureSample[] = Array.from({ length: 3600 }, (_, t) => ({
      t,
      figures: { "pool.busy": t === 42 ? 64 : 3, ...(t >= 1800 && { "broker.lag": t === 3333 ? 1e6 : 10 }) },
    }));
    const out = downsampleFigures(rows, 400);
    expect(out.length).toBeLessThanOrEqual(400);
    expect(Math.max(...out.map((r) => r.figures["pool.busy"]!))).toBe(64);
    expect(Math.max(...out.map((r) => r.figures["broker.lag"] ?? 0))).toBe(1e6);
    expect(out.filter((r) => r.t < 1790).every((r) => !("broker.lag" in r.figures))).toBe(true);
  });
});
