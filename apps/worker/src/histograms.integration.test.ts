import { ZRunSummary, TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * Several load generators, for real: two k6 and two sl-wrk instances against 2 replicas for 5 s.
 * Their percentiles are merged from their histograms (k6's scalelab output, sl-wrk's hist), so
 * the summary says "merged" and its p95 lies between the instances' own p95s (a percentile of the
 * requests together cannot leave the range of the parts'), within the histogram's 0.4 %.
 */
const ctx = useLabWorker("histograms");

async function run(workload: TRunCreateInput["workload"]) {
  const id = await ctx.lab.createRun({
    name: `merged histograms ${JSON.stringify(workload)}`,
    topology: { service: { replicas: 2, memoryMb: 64 } },
    workload,
  });
  const row = await ctx.lab.finished(id);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
  const summary = ZRunSummary.parse(row.summary);
  expect(summary.loadgen).toMatchObject({ instances: 2, percentiles: "merged" });
  const line = events.map((e) => e.message).find((m) => m.startsWith("latency percentiles merged"));
  expect(line, events.map((e) => e.message).join("\n")).toBeDefined();
  const each = [...line!.matchAll(/ (\d+(?:\.\d+)?) ms/g)].slice(1).map((m) => Number(m[1]));
  expect(each).toHaveLength(2);
  // Every second was merged from both instances' histograms, the last (partial) one perhaps not.
  const [, merged, stored] = /(\d+) of (\d+) seconds merged so/.exec(line!)!.map(Number);
  expect(stored).toBeGreaterThanOrEqual(4);
  expect(merged).toBeGreaterThanOrEqual(stored! - 1);
  console.log(`${JSON.stringify(workload)}: ${line}`);
  const p95 = summary.latencyMs.p95;
  expect(p95).toBeGreaterThanOrEqual(Math.min(...each) * (1 - 1 / 256) - 0.002);
  expect(p95).toBeLessThanOrEqual(Math.max(...each) * (1 + 1 / 256) + 0.002);
  expect(summary.latencyMs.p50).toBeLessThanOrEqual(summary.latencyMs.p95);
  // The stored seconds were merged from histograms too, and carry none.
  const samples = await ctx.lab.db.runSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  expect(samples.length).toBeGreaterThanOrEqual(4);
  for (const s of samples.filter((s) => s.requests > 0)) expect(s.latP95).toBeGreaterThan(0);
  return summary;
}

describe("merged percentiles of several load generators", () => {
  it("two k6 instances", async () => {
    await run({ endpoint: "cpu", arrivalRate: 100, durationSeconds: 5, loadgenInstances: 2, loadgenCpus: 0.5 });
  });

  it("two sl-wrk instances", async () => {
    await run({ loadgen: "wrk", endpoint: "cpu", connections: 4, threads: 1, durationSeconds: 5, loadgenInstances: 2, loadgenCpus: 0.5 });
  });
});
