import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TRunSummary, TSample } from "../contract/results";
import { wrkTotals } from "./component";
import { exactPercentile, HISTOGRAM_PRECISION, histogramCount, mergeHistograms, WithHistogram } from "./histogram";
import { K6Histograms } from "./k6/histogram-output";
import { mergeSummaries, percentilesMerge } from "./merge";
import { WrkOutputReader, WrkSummary } from "./wrk/wrk";

/*
 * Real output of two k6 and two sl-wrk instances that loaded one testbed at once
 * (fixtures/record-histograms.sh, 2026-11-26): each instance's histogram lines, and every request's
 * latency (k6's --out json, sl-wrk's --sl-dump-latencies), to compare the merged histograms with.
 */
const fixture = (name: string) =>
  readFileSync(path.join(__dirname, "fixtures", name), "utf8")
    .split("\n")
    .filter(Boolean);

function k6Instance(i: number) {
  const h = new K6Histograms();
  for (const line of fixture(`k6-hist-${i}.out`)) h.push(line);
  h.end();
  return { histograms: h, durationsMs: fixture(`k6-hist-${i}.durations`).map(Number) };
}

function wrkInstance(i: number) {
  const reader = new WrkOutputReader();
  const samples: WithHistogram<TSample>[] = [];
  let summary: WrkSummary | undefined;
  let latenciesMs: number[] = [];
  for (const line of fixture(`wrk-hist-${i}.out`)) {
    const u = reader.push(line);
    if (u?.type === "sample") samples.push(u.sample);
    if (u?.type === "stop") summary = u.summary;
    const json = JSON.parse(line) as { type: string; us?: Record<string, number> };
    if (json.type === "latencies") latenciesMs = Object.entries(json.us!).flatMap(([us, n]) => Array<number>(n).fill(Number(us) / 1000));
  }
  return { samples, summary: summary!, latenciesMs };
}

const within = (approx: number, exact: number) => Math.abs(approx - exact) <= exact * HISTOGRAM_PRECISION + 0.0015;
const PS = [
  ["p50", 50],
  ["p90", 90],
  ["p95", 95],
  ["p99", 99],
] as const;

function expectPercentiles(latency: TRunSummary["latencyMs"], values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  for (const [key, p] of PS) {
    const exact = exactPercentile(sorted, p);
    expect(within(latency[key], exact), `${key}: merged ${latency[key]} ms, exact ${exact} ms`).toBe(true);
  }
}

describe("merged histograms of real generators", () => {
  const k6 = [k6Instance(1), k6Instance(2)];
  const wrk = [wrkInstance(1), wrkInstance(2)];

  it("k6's output counts every request once: its seconds add up to its total, the total to k6's own count", () => {
    for (const { histograms, durationsMs } of k6) {
      const seconds = [0, 1, 2, 3, 4, 5].map((t) => histograms.second(t) ?? {});
      expect(histogramCount(histograms.total()!)).toBe(durationsMs.length);
      expect(histogramCount(mergeHistograms(seconds))).toBe(durationsMs.length);
      expect(durationsMs.length).toBeGreaterThan(150);
    }
  });

  it("sl-wrk's summary histogram holds every latency it recorded, its seconds all but the last moment's", () => {
    for (const { samples, summary, latenciesMs } of wrk) {
      expect(histogramCount(summary.histogram!)).toBe(latenciesMs.length);
      const inSeconds = histogramCount(mergeHistograms(samples.map((s) => s.histogram!)));
      expect(inSeconds).toBeLessThanOrEqual(latenciesMs.length);
      expect(inSeconds).toBeGreaterThan(latenciesMs.length * 0.9);
    }
  });

  it("two k6 instances: merged p50…p99 are the percentiles of all their requests within 0.4 %", () => {
    const parts: WithHistogram<TRunSummary>[] = k6.map(({ histograms, durationsMs }) => ({
      requests: durationsMs.length,
      rps: 0,
      errors: 0,
      errorRate: 0,
      latencyMs: { avg: 1, p50: 1, p90: 1, p95: 1, p99: 1, max: Math.max(...durationsMs) },
      histogram: histograms.total()!,
    }));
    expect(percentilesMerge(parts)).toBe("merged");
    expectPercentiles(
      mergeSummaries(parts).latencyMs,
      k6.flatMap((k) => k.durationsMs),
    );
  });

  it("two sl-wrk instances, as the worker merges their totals", () => {
    const merged = mergeSummaries(wrk.map((w) => wrkTotals(w.summary, 4)));
    expectPercentiles(
      merged.latencyMs,
      wrk.flatMap((w) => w.latenciesMs),
    );
    expect(merged.latencyMs.max).toBe(Math.max(...wrk.flatMap((w) => w.latenciesMs)));
    // The worst instance's figure is not the merged one: the instances differ.
    const worst = Math.max(...wrk.map((w) => w.summary.latencyMs!.p50));
    expect(merged.latencyMs.p50).toBeLessThan(worst);
  });

  it("all four at once: k6's and sl-wrk's histograms share their slots", () => {
    const all = mergeHistograms([...k6.map((k) => k.histograms.total()!), ...wrk.map((w) => w.summary.histogram!)]);
    const parts: WithHistogram<TRunSummary>[] = [
      { requests: 1, rps: 0, errors: 0, errorRate: 0, latencyMs: { avg: 1, p50: 1, p90: 1, p95: 1, p99: 1, max: 1 }, histogram: all },
    ];
    const values = [...k6.flatMap((k) => k.durationsMs), ...wrk.flatMap((w) => w.latenciesMs)];
    expect(histogramCount(all)).toBe(values.length);
    expectPercentiles(mergeSummaries([...parts, { ...parts[0]!, histogram: {} }]).latencyMs, values);
  });
});
