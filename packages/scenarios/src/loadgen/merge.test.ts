import { TRunSummary, TSample } from "../contract/results";
import { describe, expect, it } from "vitest";
import { NO_ANSWER_KEY } from "../contract/backends";
import { mergeSamples, mergeSummaries, percentilesMerge, SampleMerger, withoutHistogram, WithHistogram } from "./merge";
import { histogramCount, histogramOf } from "./histogram";

const lat = (p50: number, max: number, avg = p50) => ({ avg, p50, p90: p50 * 2, p95: p50 * 3, p99: p50 * 4, max });
const sample = (t: number, requests: number, p50: number, backends?: Record<string, number>): TSample => ({
  t,
  requests,
  errors: 1,
  latencyMs: lat(p50, p50 * 10),
  ...(backends && { backends }),
});

describe("mergeSamples", () => {
  it("adds counts and keeps the worst percentiles with a request-weighted mean", () => {
    const m = mergeSamples([sample(3, 300, 2, { "app-0": 200, "app-1": 100 }), sample(3, 100, 6, { "app-1": 100 })]);
    expect(m).toEqual({
      t: 3,
      requests: 400,
      errors: 2,
      latencyMs: { avg: 3, p50: 6, p90: 12, p95: 18, p99: 24, max: 60 },
      backends: { "app-0": 200, "app-1": 200 },
    });
  });

  it("ignores an instance without a completed request in that second", () => {
    const idle: TSample = { t: 0, requests: 0, errors: 0, latencyMs: null };
    expect(mergeSamples([idle, sample(0, 10, 5)]).latencyMs).toEqual(lat(5, 50));
    expect(mergeSamples([idle, idle]).latencyMs).toBeNull();
  });
});

describe("per-backend truth", () => {
  const truth = (app0: number, p95: number, noAnswer?: number): Pick<TSample, "backendStats" | "errorKinds"> => ({
    backendStats: {
      "app-0": { requests: app0, errors: { "503": 1 }, latencyMs: { avg: p95 / 2, max: p95 * 2, p95 } },
      ...(noAnswer !== undefined && { [NO_ANSWER_KEY]: { requests: noAnswer, errors: { timeout: noAnswer }, latencyMs: null } }),
    },
    errorKinds: { "503": 1, ...(noAnswer !== undefined && { timeout: noAnswer }) },
  });

  it("adds counts per backend and kind, weights the mean by requests, keeps the largest max and the worst p95", () => {
    const m = mergeSamples([
      { ...sample(0, 300, 1), ...truth(300, 2) },
      { ...sample(0, 102, 1), ...truth(100, 6, 2) },
    ]);
    expect(m.backendStats).toEqual({
      "app-0": { requests: 400, errors: { "503": 2 }, latencyMs: { avg: 1.5, max: 12, p95: 6 } },
      [NO_ANSWER_KEY]: { requests: 2, errors: { timeout: 2 }, latencyMs: null },
    });
    expect(m.errorKinds).toEqual({ "503": 2, timeout: 2 });
  });

  it("merges the summaries' per-backend figures the same way, and leaves them out when no instance has them", () => {
    const s = (extra: Partial<TRunSummary>): TRunSummary => ({
      requests: 100,
      rps: 10,
      errors: 1,
      errorRate: 0.01,
      latencyMs: lat(1, 10),
      ...extra,
    });
    const m = mergeSummaries([s(truth(100, 4)), s(truth(100, 8))]);
    expect(m.backendStats).toEqual({ "app-0": { requests: 200, errors: { "503": 2 }, latencyMs: { avg: 3, max: 16, p95: 8 } } });
    expect(m.errorKinds).toEqual({ "503": 2 });
    const old = mergeSummaries([s({}), s({})]);
    expect(old).not.toHaveProperty("backendStats");
    expect(old).not.toHaveProperty("errorKinds");
  });
});

describe("mergeSummaries", () => {
  it("adds requests, rates and dropped iterations and recomputes the error rate", () => {
    const s = (requests: number, errors: number, p99: number): TRunSummary => ({
      requests,
      rps: requests / 10,
      errors,
      errorRate: errors / requests,
      latencyMs: { avg: 1, p50: 1, p90: 1, p95: 1, p99, max: p99 },
      durationSeconds: 10,
      droppedIterations: 2,
    });
    const m = mergeSummaries([s(1000, 10, 9), s(3000, 0, 4)]);
    expect(m).toMatchObject({ requests: 4000, rps: 400, errors: 10, errorRate: 0.0025, droppedIterations: 4, durationSeconds: 10 });
    expect(m.latencyMs.p99).toBe(9);
  });
});

describe("SampleMerger", () => {
  it("passes samples straight through with one instance", () => {
    expect(new SampleMerger(1).push(0, sample(0, 5, 1))).toEqual([sample(0, 5, 1)]);
  });

  it("gives out a second once every instance reported it, in order", () => {
    const m = new SampleMerger(2);
    expect(m.push(0, sample(0, 1, 1))).toEqual([]);
    expect(m.push(0, sample(1, 1, 1))).toEqual([]);
    expect(m.push(1, sample(0, 2, 1)).map((s) => [s.t, s.requests])).toEqual([[0, 3]]);
    expect(m.push(1, sample(1, 2, 1)).map((s) => [s.t, s.requests])).toEqual([[1, 3]]);
  });

  it("does not wait for an instance that ended or skipped a second", () => {
    const m = new SampleMerger(2);
    m.push(0, sample(0, 1, 1));
    expect(m.push(1, sample(1, 2, 1)).map((s) => [s.t, s.requests])).toEqual([[0, 1]]);
    expect(m.end(0).map((s) => [s.t, s.requests])).toEqual([[1, 2]]);
  });
});

describe("merging with histograms", () => {
  // Instance A: 90 fast requests (1 ms) and 10 slow (100 ms); instance B: 100 at 10 ms.
  const fast = histogramOf([...Array.from({ length: 90 }, () => 1), ...Array.from({ length: 10 }, () => 100)]);
  const even = histogramOf(Array.from({ length: 100 }, () => 10));
  const a: WithHistogram<TSample> = {
    t: 0,
    requests: 100,
    errors: 0,
    latencyMs: { avg: 10.9, p50: 1, p90: 1, p95: 100, p99: 100, max: 100 },
    histogram: fast,
  };
  const b: WithHistogram<TSample> = {
    t: 0,
    requests: 100,
    errors: 0,
    latencyMs: { avg: 10, p50: 10, p90: 10, p95: 10, p99: 10, max: 10 },
    histogram: even,
  };

  it("reads p50…p99 from the summed histograms (all 200 requests), the mean weighted, max the largest", () => {
    const m = mergeSamples([a, b]);
    // Of all 200: 90 at 1 ms, 100 at 10 ms, 10 at 100 ms: p95 is 10 ms (the worst instance says 100), p99 100 ms;
    // each read as the middle of its slot (10 ms: 10.016).
    expect(m.latencyMs).toEqual({ avg: 10.45, p50: 10.016, p90: 10.016, p95: 10.016, p99: 100.096, max: 100 });
    const allFast = histogramOf(Array.from({ length: 100 }, () => 1));
    expect(mergeSamples([{ ...a, histogram: allFast }, b]).latencyMs).toMatchObject({ p50: 1.002, p90: 10.016, p95: 10.016 });
    expect(histogramCount(m.histogram!)).toBe(200);
    expect(percentilesMerge([a, b])).toBe("merged");
  });

  it("falls back to the worst instance when a part has no histogram, and says so", () => {
    const { histogram: _h, ...old } = b;
    const m = mergeSamples([a, old]);
    expect(m.latencyMs).toEqual({ avg: 10.45, p50: 10, p90: 10, p95: 100, p99: 100, max: 100 });
    expect(m.histogram).toBeUndefined();
    expect(percentilesMerge([a, old as WithHistogram<TSample>])).toBe("worst instance");
  });

  it("merges whole runs the same way and keeps the histogram only until it is stored", () => {
    const run = (s: WithHistogram<TSample>): WithHistogram<TRunSummary> => ({
      requests: s.requests,
      rps: 10,
      errors: 0,
      errorRate: 0,
      latencyMs: s.latencyMs!,
      ...(s.histogram && { histogram: s.histogram }),
    });
    const m = mergeSummaries([run(a), run(b)]);
    expect(m.latencyMs).toMatchObject({ p50: 10.016, p95: 10.016, p99: 100.096, max: 100 });
    expect(withoutHistogram(m)).not.toHaveProperty("histogram");
    expect(withoutHistogram(m).latencyMs).toEqual(m.latencyMs);
  });
});
