import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { K6EventReader, type K6Update } from "./k6-events";

/**
 * Fixtures: the /events stream of real k6 v1.4.2 runs of our own script (renderK6Script) against a
 * local server answering as two backends with 5 % errors; the `config` event's UI layout is cut.
 * closed: 2 VUs, 5 s. open: 200 req/s with maxVUs 3 against 20 ms responses (drops iterations).
 * timeout: 1 VU, every request times out after 1.5 s (seconds without any completed request).
 */
function replay(fixture: string) {
  const reader = new K6EventReader();
  const updates: K6Update[] = [];
  for (const block of readFileSync(new URL(`./fixtures/${fixture}`, import.meta.url), "utf8").split("\n\n")) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (!event || data === undefined) continue;
    const update = reader.push(event, data);
    if (update) updates.push(update);
  }
  const samples = updates.flatMap((u) => (u.type === "sample" ? [u.sample] : []));
  return { reader, updates, samples };
}

describe("K6EventReader", () => {
  it("turns snapshots into per-second samples with latency in ms and backends", () => {
    const { updates, samples } = replay("k6-closed.sse");
    expect(updates[0]).toEqual({ type: "start", at: new Date(1795223167434) });
    expect(updates.at(-1)).toEqual({ type: "stop", at: new Date(1795223172959) });
    expect(samples.map((s) => s.t)).toEqual([0, 1, 2, 3, 4]);
    expect(samples[0]).toEqual({
      t: 0,
      requests: 568,
      errors: 28,
      latencyMs: { avg: 3.3393, p50: 1.4592, p90: 14.813, p95: 15.753, p99: 19.974, max: 39.654 },
      backends: { "app-0": 379, "app-1": 189 },
    });
    for (const s of samples) {
      expect(s.backends!["app-0"]! + s.backends!["app-1"]!).toBe(s.requests);
      expect(s.latencyMs!.p50).toBeLessThanOrEqual(s.latencyMs!.p99);
    }
  });

  it("summarises the run from the last cumulative event, over the load's duration", () => {
    const { reader, samples } = replay("k6-closed.sse");
    const summary = reader.summary(5)!;
    // k6's own end-of-test summary of this run: 3283 requests, 164 failed, p(95)=15.47ms (its
    // 595/s divides by 5.5 s, the load plus the idle teardown).
    expect(summary).toEqual({
      requests: 3283,
      rps: 656.6,
      errors: 164,
      errorRate: 0.049954,
      latencyMs: { avg: 2.9365, p50: 1.3589, p90: 14.437, p95: 15.473, p99: 16.32, max: 39.654 },
      durationSeconds: 5,
      backends: { "app-0": 2189, "app-1": 1094 },
    });
    // Requests finishing after the last full second are in the summary only.
    expect(samples.reduce((n, s) => n + s.requests, 0)).toBe(3248);
  });

  it("reports dropped iterations of the open model", () => {
    const { reader, samples } = replay("k6-open.sse");
    expect(reader.summary(5)).toMatchObject({ requests: 602, errors: 30, droppedIterations: 399, rps: 120.4 });
    expect(samples).toHaveLength(5);
  });

  it("gives zero-request samples for seconds in which nothing completed", () => {
    const { reader, samples } = replay("k6-timeout.sse");
    expect(samples.map((s) => s.requests)).toEqual([0, 1, 0, 1, 1, 0]);
    // No request completed in these seconds: no latency, rather than a fake 0 ms.
    expect(samples[0]).toEqual({ t: 0, requests: 0, errors: 0, latencyMs: null, backends: {} });
    expect(samples.filter((s) => s.requests === 0).every((s) => s.latencyMs === null)).toBe(true);
    expect(samples[1]).toMatchObject({ requests: 1, errors: 1, latencyMs: { avg: 1491.9 } });
    expect(reader.summary(5)).toMatchObject({ requests: 4, errors: 4, errorRate: 1, backends: {} });
  });

  it("refuses data it cannot align with the metrics it was told about", () => {
    const reader = new K6EventReader();
    reader.push("metric", '{"http_reqs":{"type":"counter"}}');
    expect(() => reader.push("snapshot", "[[1,1],[2]]")).toThrow(/2 metrics, expected 1/);
  });

  it("has no summary before the first cumulative event", () => {
    expect(new K6EventReader().summary(5)).toBeUndefined();
  });
});
