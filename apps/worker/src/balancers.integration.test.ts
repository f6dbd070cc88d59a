import { ZRunSummary, TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * The balancer kinds, load generators and protocols for real, through the queue and the worker,
 * against the real Docker engine, Postgres and Redis: 4 replicas answering their host name for 5 s (k6 at 200 req/s),
 * and the per-backend counts the load generator took from X-Backend (x-backend for gRPC).
 */
const ctx = useLabWorker("balancers");

const REPLICAS = 4;
const BACKENDS = Array.from({ length: REPLICAS }, (_, i) => `app-${i}`);

// A fixed rate far below what 4 replicas serve: what is checked is where requests go, not how many
// the host can take (and the test script runs this file beside others).
const K6_LOAD: TRunCreateInput["workload"] = { endpoint: "hostname", arrivalRate: 200, durationSeconds: 5 };

async function run(balancer: NonNullable<TRunCreateInput["topology"]["balancer"]>, workload = K6_LOAD) {
  const id = await ctx.lab.createRun({
    name: `balancer ${JSON.stringify(balancer)} ${JSON.stringify(workload)}`,
    topology: { balancer, service: { replicas: REPLICAS, memoryMb: 64 } },
    workload,
  });
  const row = await ctx.lab.finished(id);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
  expect(row.status).toBe("succeeded");
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  // The warm-up spoke the run's protocol (HTTP/1.1 or gRPC) through the same entry.
  expect(events.map((e) => e.message)).toContainEqual(expect.stringMatching(/^warm-up: [1-9]\d* requests in [\d.]+ s, 0 errors$/));
  const summary = ZRunSummary.parse(row.summary);
  expect(summary.requests).toBeGreaterThan(100);
  expect(summary.errors).toBe(0);
  const backends = summary.backends ?? {};
  console.log(
    `${JSON.stringify(balancer)} ${JSON.stringify(workload)}: ${summary.requests} requests, per backend ${JSON.stringify(backends)}`,
  );
  for (const name of Object.keys(backends)) expect(BACKENDS).toContain(name);
  expect(Object.values(backends).reduce((a, b) => a + b, 0)).toBe(summary.requests);
  // The per-second samples add up to the whole run, whichever generator and however many instances.
  const samples = await ctx.lab.db.runSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  expect(samples.map((s) => s.t)).toEqual(Array.from({ length: samples.length }, (_, i) => i));
  expect(samples.length).toBeGreaterThanOrEqual(4);
  const perSecond = samples.reduce((n, s) => n + s.requests, 0);
  expect(perSecond).toBeGreaterThanOrEqual(summary.requests * 0.9);
  expect(perSecond).toBeLessThanOrEqual(summary.requests);
  expect(summary.loadgen).toMatchObject({ tool: workload.loadgen ?? "k6", instances: workload.loadgenInstances ?? 1 });
  return { id, summary, backends };
}

/** Every replica got within 5 % of an even share. */
function expectEven(backends: Record<string, number>, requests: number) {
  const even = requests / REPLICAS;
  for (const name of BACKENDS) {
    expect(backends[name] ?? 0, name).toBeGreaterThanOrEqual(even * 0.95);
    expect(backends[name] ?? 0, name).toBeLessThanOrEqual(even * 1.05);
  }
}

describe("balancer kinds", () => {
  it("nginx round_robin spreads evenly over the replicas", async () => {
    const { summary, backends } = await run({ kind: "nginx", algorithm: "round_robin" });
    expectEven(backends, summary.requests);
  });

  it("haproxy roundrobin, finding the replicas through Docker's DNS, spreads evenly; its stats are read each second", async () => {
    // HAProxy's current sessions, read once a second, show only connections open at that moment:
    // 4 closed-model VUs keep 4 open all along (a light fixed rate may have none open when read).
    const { id, summary, backends } = await run(
      { kind: "haproxy", algorithm: "roundrobin" },
      { endpoint: "hostname", vus: 4, durationSeconds: 8 },
    );
    expectEven(backends, summary.requests);
    const seconds = await ctx.lab.db.figureSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
    // A poll still going when the next second comes skips that second (figures.ts): beside the other
    // lanes on 2 cores, 2 and 3 of a 5 s run's seconds were read (2026-11-26). At least half of them.
    expect(seconds.length).toBeGreaterThanOrEqual(4);
    for (const { figures } of seconds) expect(figures).toMatchObject({ "lb.up": REPLICAS, "lb.down": 0, "lb.errors": 0 });
    expect(Math.max(...seconds.map((s) => (s.figures as Record<string, number>)["lb.sessions"]!))).toBeGreaterThan(0);
  });

  it("nginx ip_hash sends everything from the one load generator to one replica", async () => {
    const { summary, backends } = await run({ kind: "nginx", algorithm: "ip_hash" });
    expect(Object.values(backends)).toEqual([summary.requests]);
  });

  it("none: the load goes to the service's shared alias and Docker's DNS spreads it as it will", async () => {
    await run({ kind: "none" });
  });

  // One load generator, many requests: per-request algorithms reach every replica, per-client ones one.
  it.each([
    [{ kind: "nginx", algorithm: "least_conn" }, "every"],
    [{ kind: "nginx", algorithm: "hash" }, "every"],
    [{ kind: "nginx", algorithm: "random" }, "every"],
    [{ kind: "haproxy", algorithm: "leastconn" }, "every"],
    [{ kind: "haproxy", algorithm: "random" }, "every"],
    [{ kind: "haproxy", algorithm: "source" }, "one"],
    [{ kind: "haproxy", algorithm: "first" }, "one"],
  ] as const)("%j reaches %s replica", async (balancer, reach) => {
    const { summary, backends } = await run(balancer);
    if (reach === "one") expect(Object.values(backends)).toEqual([summary.requests]);
    else for (const name of BACKENDS) expect(backends[name] ?? 0, name).toBeGreaterThan(summary.requests * 0.1);
  });
});

describe("load generators", () => {
  it("wrk through haproxy leastconn fills per-second samples and per-backend counts", async () => {
    const { summary } = await run(
      { kind: "haproxy", algorithm: "leastconn" },
      { loadgen: "wrk", connections: 20, threads: 1, endpoint: "hostname", durationSeconds: 5 },
    );
    expect(summary.latencyMs.p99).toBeGreaterThan(0);
  });

  it("two wrk instances merge into one series: counts add up and round robin stays even", async () => {
    const { summary, backends } = await run(
      { kind: "nginx", algorithm: "round_robin" },
      { loadgen: "wrk", connections: 16, endpoint: "hostname", durationSeconds: 5, loadgenInstances: 2, loadgenCpus: 0.5 },
    );
    expect(summary.loadgen?.percentiles).toBe("merged");
    expectEven(backends, summary.requests);
  });

  it("two k6 instances share the rate and merge", async () => {
    const { summary } = await run({ kind: "nginx", algorithm: "round_robin" }, { ...K6_LOAD, loadgenInstances: 2, loadgenCpus: 0.5 });
    expect(summary.loadgen?.instances).toBe(2);
  });
});

describe("gRPC", () => {
  const GRPC: TRunCreateInput["workload"] = { protocol: "grpc", arrivalRate: 200, durationSeconds: 5 };

  it("through nginx grpc_pass round robin, with per-backend counts from the x-backend metadata", async () => {
    const { summary, backends } = await run({ kind: "nginx", algorithm: "round_robin" }, GRPC);
    expectEven(backends, summary.requests);
  });

  it("through HAProxy in HTTP/2 mode", async () => {
    const { summary, backends } = await run({ kind: "haproxy", algorithm: "roundrobin" }, GRPC);
    expectEven(backends, summary.requests);
  });
});
