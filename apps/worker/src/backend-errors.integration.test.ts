import { BALANCER_KEY, errorCount, errorKindsOf, NO_ANSWER_KEY, ZBackendStats, TBackendStats } from "@scalelab/scenarios/contract";
import { ZErrorCounts } from "@scalelab/scenarios/contract";
import { LABELS } from "@scalelab/scenarios/plan";
import { ZRunSummary, TRunCreateInput, TSample } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { useLabWorker, waitFor } from "./testing/lab";

/*
 * Per-backend truth for real, through the queue and the worker, against the real Docker engine,
 * Postgres and Redis, without the fault timeline: nginx round robin over 2 testbed replicas with
 * proxy_next_upstream off, each replica with one worker, a queue of one and a quarter of a CPU, so
 * that under the load each answers some requests 503 itself (queue full, with its X-Backend); 3 s
 * into the load the test stops app-1 with the Docker engine, and nginx answers the request in flight
 * to it with its own 502 (no X-Backend: the balancer), then skips it (max_fails 1 for 30 s).
 */
const ctx = useLabWorker("backend-errors");

const topology: TRunCreateInput["topology"] = {
  balancer: { kind: "nginx", algorithm: "round_robin", retryNextUpstream: false, maxFails: 1, failTimeoutSeconds: 30 },
  service: { replicas: 2, cpus: 0.25, memoryMb: 64, workerPool: 1, queueLimit: 1, cpuIterations: 20000 },
};
const STOP_AT_SECONDS = 3;
const REPLICAS = ["app-0", "app-1"];

type Stored = TSample & { backendStats: TBackendStats };

async function runAndStop(workload: TRunCreateInput["workload"]) {
  const { lab, docker } = ctx;
  const id = await lab.createRun({ name: `backend errors ${workload.loadgen ?? "k6"}`, topology, workload });
  // Stop replica 1 a few seconds into the load, as a fault would (the fault timeline is not used here).
  const loadStartedAt = await waitFor("the load to start", 180_000, async () => {
    const run = await lab.db.run.findUniqueOrThrow({ where: { id } });
    if (run.status !== "queued" && run.status !== "running") throw new Error(`run ${id} ended before its load: ${run.error}`);
    return run.loadStartedAt ?? undefined;
  });
  await new Promise((r) => setTimeout(r, Math.max(0, loadStartedAt.getTime() + STOP_AT_SECONDS * 1000 - Date.now())));
  const replicas = await docker.listContainers({ filters: { label: [`${LABELS.run}=${id}`, `${LABELS.role}=app`] } });
  const target = replicas.find((c) => c.Names.some((n) => n.endsWith("-app-1")));
  expect(target, replicas.map((c) => c.Names.join(",")).join(" ")).toBeDefined();
  const stoppedAt = Date.now();
  await docker.getContainer(target!.Id).stop({ t: 0 });
  const stopSecond = Math.floor((stoppedAt - loadStartedAt.getTime()) / 1000);

  const row = await lab.finished(id);
  const events = await lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
  expect(row.status).toBe("succeeded");
  expect(await lab.leftovers(id)).toEqual([]);
  const summary = ZRunSummary.parse(row.summary);
  const rows = await lab.db.runSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  // Stored with every second, as GET /runs/{id}/samples gives them back.
  const samples: Stored[] = rows.map((r) => ({
    t: r.t,
    requests: r.requests,
    errors: r.errors,
    latencyMs: null,
    backendStats: ZBackendStats.parse(r.backendStats),
    errorKinds: ZErrorCounts.parse(r.errorKinds),
  }));
  console.log(
    `${workload.loadgen ?? "k6"}: stopped app-1 in second ${stopSecond}; ${summary.requests} requests, errors ${JSON.stringify(summary.errorKinds)}; per backend ${JSON.stringify(summary.backendStats)}`,
  );
  return { summary, samples, stopSecond };
}

function expectTruth({ summary, samples, stopSecond }: Awaited<ReturnType<typeof runAndStop>>, perSecondSlack: number) {
  const stats = summary.backendStats!;
  expect(stats).toBeDefined();
  // Every request of the run is under exactly one backend, every failure under exactly one kind.
  expect(Object.values(stats).reduce((n, b) => n + b.requests, 0)).toBe(summary.requests);
  expect(errorCount(summary.errorKinds)).toBe(summary.errors);
  // What answered with X-Backend is what `backends` counted.
  for (const [name, n] of Object.entries(summary.backends ?? {})) expect(stats[name]!.requests, name).toBe(n);
  // A replica answers its own errors: 503, queue full. Each had some before the stop.
  for (const name of REPLICAS) {
    expect(Object.keys(stats[name]!.errors), name).toEqual(["503"]);
    expect(stats[name]!.latencyMs!.max).toBeGreaterThanOrEqual(stats[name]!.latencyMs!.avg);
  }
  // nginx answered the request in flight to the stopped replica itself: 502 without X-Backend.
  expect(stats[BALANCER_KEY]?.errors["502"] ?? 0).toBeGreaterThanOrEqual(1);
  expect(Object.keys(stats[BALANCER_KEY]!.errors)).toEqual(["502"]);
  expect(stats[BALANCER_KEY]!.requests).toBe(stats[BALANCER_KEY]!.errors["502"]);
  // Nothing else failed but, at most, a request nginx sent to the vanished replica before it skipped
  // it (each nginx worker keeps its own max_fails count), which the client gave up on.
  for (const kind of Object.keys(stats[NO_ANSWER_KEY]?.errors ?? {})) expect(["timeout", "conn"]).toContain(kind);
  expect(samples.filter((s) => s.t < stopSecond).every((s) => s.backendStats[NO_ANSWER_KEY] === undefined)).toBe(true);

  expect(samples.length).toBeGreaterThanOrEqual(5);
  for (const s of samples) {
    const perBackend = Object.values(s.backendStats).reduce((n, b) => n + b.requests, 0);
    expect(Math.abs(perBackend - s.requests), `t=${s.t}`).toBeLessThanOrEqual(perSecondSlack);
    expect(s.errorKinds).toEqual(errorKindsOf(s.backendStats));
  }
  // The seconds add up to the run but for what finished after the last whole second.
  const sampled = samples.reduce((n, s) => n + Object.values(s.backendStats).reduce((m, b) => m + b.requests, 0), 0);
  expect(sampled).toBeLessThanOrEqual(summary.requests);
  expect(sampled).toBeGreaterThanOrEqual(summary.requests * 0.9);
  // The 502s fall in the second of the stop (or the next, at its edge), and app-1 takes nothing after it.
  const failedAt = samples.filter((s) => s.backendStats[BALANCER_KEY]).map((s) => s.t);
  expect(failedAt.length).toBeGreaterThanOrEqual(1);
  for (const t of failedAt) expect([stopSecond, stopSecond + 1]).toContain(t);
  expect(samples.filter((s) => s.t > stopSecond + 1).every((s) => s.backendStats["app-1"] === undefined)).toBe(true);
  expect(samples.filter((s) => s.t < stopSecond).every((s) => (s.backendStats["app-1"]?.requests ?? 0) > 0)).toBe(true);
}

describe("per-backend truth", () => {
  it("k6 (open model): 503s under the replica that answered them, nginx's own 502 under the balancer", async () => {
    const result = await runAndStop({ endpoint: "cpu", arrivalRate: 150, durationSeconds: 8, requestTimeoutMs: 2000 });
    // k6 counts a request, the script its backend a moment later: a second's edge may split them.
    expectTruth(result, 3);
    expect(result.summary.backendStats!["app-0"]!.latencyMs!.p95).toBeGreaterThan(0);
  });

  it("wrk: the same from sl-wrk's per-second report", async () => {
    const result = await runAndStop({
      loadgen: "wrk",
      endpoint: "cpu",
      connections: 8,
      threads: 1,
      loadgenCpus: 0.5,
      durationSeconds: 8,
      requestTimeoutMs: 2000,
    });
    // One thread: its counters are read together, but a response may complete between two of the reads.
    expectTruth(result, 3);
  });
});
