import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BALANCER_KEY, errorCount, NO_ANSWER_KEY } from "../../contract/backends";
import { K6EventReader, K6Update } from "./events";

/**
 * Fixtures: the /events stream of real k6 v1.4.2 runs of our own script (renderK6Script) against a
 * local server answering as two backends with 5 % errors; the `config` event's UI layout is cut.
 * closed: 2 VUs, 5 s. open: 200 req/s with maxVUs 3 against 20 ms responses (drops iterations).
 * timeout: 1 VU, every request times out after 1.5 s (seconds without any completed request).
 */
function replay(fixture: string, protocol: "http" | "grpc" = "http") {
  const reader = new K6EventReader(protocol);
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

  /*
   * k6-backend-errors: the script of renderK6Script (open model, 300 req/s of GET /cpu, 1 s timeout,
   * 10 s) through nginx round robin with proxy_next_upstream off over 3 testbed replicas. app-2 has
   * one worker, a queue of 1 and 60 000 CPU iterations a request (~12 ms): its 503s, with X-Backend.
   * app-1 stopped at 2 s: nginx's own 502 (the kept-alive connection reset), then max_fails took it
   * out. app-0 paused from 4 to 6 s: k6's request timeout (error_code 1050). The balancer restarted at
   * 7 s: connection refused (error_code 1212); nginx then failed to start, as app-1's name no longer
   * resolved, so timeouts to the end.
   */
  it("counts every request under the backend that answered it, errors by kind, latency per backend", () => {
    const { samples } = replay("k6-backend-errors.sse");
    expect(samples[0]).toEqual({
      t: 0,
      requests: 280,
      errors: 31,
      latencyMs: { avg: 7.0171, p50: 0.77754, p90: 24.853, p95: 29.558, p99: 41.623, max: 72.069 },
      backends: { "app-0": 94, "app-1": 94, "app-2": 92 },
      backendStats: {
        "app-0": { requests: 94, errors: {}, latencyMs: { avg: 1.3935, max: 14.323, p95: 4.6947 } },
        "app-1": { requests: 94, errors: {}, latencyMs: { avg: 1.3006, max: 12.225, p95: 4.4717 } },
        "app-2": { requests: 92, errors: { "503": 31 }, latencyMs: { avg: 18.603, max: 72.069, p95: 39.377 } },
      },
      errorKinds: { "503": 31 },
    });
    // The stop: nginx answered one request itself, then took app-1 out (max_fails 1).
    expect(samples[2]!.backendStats![BALANCER_KEY]).toEqual({
      requests: 1,
      errors: { "502": 1 },
      latencyMs: { avg: 0.78036, max: 0.78036, p95: 0.78036 },
    });
    expect(samples[3]!.backendStats!["app-1"]).toBeUndefined();
    // The pause: requests to app-0 time out, nobody answered them (no latency).
    expect(samples[5]!.backendStats![NO_ANSWER_KEY]).toEqual({ requests: 71, errors: { timeout: 71 }, latencyMs: null });
    expect(samples[5]!.errorKinds).toEqual({ "503": 49, timeout: 71 });
    // The balancer's restart: refused connections.
    expect(samples[7]!.backendStats![NO_ANSWER_KEY]).toEqual({ requests: 35, errors: { conn: 35 }, latencyMs: null });
    for (const s of samples) {
      // The script counts a request a moment after k6 did: at a second's edge they may differ by one or two.
      const perBackend = Object.values(s.backendStats!).reduce((n, b) => n + b.requests, 0);
      expect(Math.abs(perBackend - s.requests), `t=${s.t}`).toBeLessThanOrEqual(2);
      expect(Math.abs(errorCount(s.errorKinds) - s.errors), `t=${s.t}`).toBeLessThanOrEqual(2);
      expect(s.backendStats![NO_ANSWER_KEY]?.latencyMs ?? null).toBeNull();
      for (const [name, b] of Object.entries(s.backendStats!))
        if (name !== NO_ANSWER_KEY) expect(b.latencyMs!.avg).toBeLessThanOrEqual(b.latencyMs!.max);
    }
  });

  it("summarises the run per backend, exactly", () => {
    const { reader, samples } = replay("k6-backend-errors.sse");
    const summary = reader.summary(10)!;
    // k6's own end-of-test summary: 2746 requests, http_req_failed 1167 of 2746.
    expect(summary).toMatchObject({ requests: 2746, errors: 1167, errorKinds: { "502": 1, "503": 437, timeout: 694, conn: 35 } });
    expect(summary.backendStats).toEqual({
      [BALANCER_KEY]: { requests: 1, errors: { "502": 1 }, latencyMs: { avg: 0.78036, max: 0.78036, p95: 0.78036 } },
      [NO_ANSWER_KEY]: { requests: 729, errors: { conn: 35, timeout: 694 }, latencyMs: null },
      "app-0": { requests: 832, errors: {}, latencyMs: { avg: 73.892, max: 998.16, p95: 623.17 } },
      "app-1": { requests: 222, errors: {}, latencyMs: { avg: 1.0532, max: 12.225, p95: 2.7585 } },
      "app-2": { requests: 962, errors: { "503": 437 }, latencyMs: { avg: 14.905, max: 140.37, p95: 34.818 } },
    });
    const stats = Object.values(summary.backendStats!);
    expect(stats.reduce((n, b) => n + b.requests, 0)).toBe(summary.requests);
    expect(errorCount(summary.errorKinds)).toBe(summary.errors);
    // Requests answered with X-Backend are the old per-backend counts.
    for (const [name, n] of Object.entries(summary.backends!)) expect(summary.backendStats![name]!.requests).toBe(n);
    // The seconds add up to the run but for the requests that finished after the last whole second.
    const perSecond = samples.flatMap((s) => Object.values(s.backendStats!)).reduce((n, b) => n + b.requests, 0);
    expect(perSecond).toBeLessThanOrEqual(summary.requests);
  });

  /*
   * k6-grpc-backend-errors: the gRPC script (200 calls/s, 1 s timeout, 9 s) through nginx grpc_pass
   * (grpc_next_upstream off) over the same replicas plus a fourth server on a port nothing listens
   * on: nginx answers those itself with 502, which grpc-go reports as Unavailable "unexpected HTTP
   * status code received from server: 502 (Bad Gateway)" without metadata. app-2 (one worker, a
   * queue of 1, a blocking 10 ms log flush) answers Unavailable "queue full" with its x-backend.
   * app-1 stopped at 2 s, app-0 paused from 4 to 6 s (DeadlineExceeded), the balancer restarted at
   * 7 s (Unavailable with nobody answering, then connect() throwing).
   */
  it("classifies gRPC calls by their code, message and metadata", () => {
    const { reader, samples } = replay("k6-grpc-backend-errors.sse", "grpc");
    expect(samples[0]!.backendStats![BALANCER_KEY]).toMatchObject({ requests: 48, errors: { "502": 48 } });
    expect(samples[0]!.errorKinds).toEqual({ "502": 48, "503": 1 });
    expect(samples[8]).toMatchObject({
      requests: 154,
      errors: 154,
      backendStats: { [NO_ANSWER_KEY]: { requests: 154, errors: { conn: 154 }, latencyMs: null } },
    });
    const summary = reader.summary(10)!;
    expect(summary).toMatchObject({ requests: 1744, errors: 748, errorKinds: { "502": 470, "503": 3, timeout: 105, conn: 170 } });
    expect(summary.backendStats!["app-2"]).toMatchObject({ requests: 469, errors: { "503": 3 } });
    expect(summary.backendStats![NO_ANSWER_KEY]).toEqual({ requests: 275, errors: { conn: 170, timeout: 105 }, latencyMs: null });
    expect(Object.values(summary.backendStats!).reduce((n, b) => n + b.requests, 0)).toBe(summary.requests);
  });

  it("leaves out per-backend truth for a script that did not count it", () => {
    const { reader, samples } = replay("k6-closed.sse");
    expect(samples.every((s) => s.backendStats === undefined && s.errorKinds === undefined)).toBe(true);
    expect(reader.summary(5)!.backendStats).toBeUndefined();
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
