import { ensureImages } from "@scalelab/images";
import { runFindings } from "@scalelab/scenarios/analysis";
import { BALANCER_KEY, errorCount, NO_ANSWER_KEY, TRunCreateInput, ZRunSummary } from "@scalelab/scenarios/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * Per-backend counts for a service that does not name itself: the testbed run as a user's image
 * (`service.kind: image`) with TESTBED_BACKEND_HEADER=off, so no answer carries X-Backend. Behind
 * nginx or HAProxy the balancer's X-Scalelab-Upstream names the replica's address, without a
 * balancer k6 counts the address each connection reached; the worker maps the addresses (a fault
 * proxy's included) to the replicas' names. wrk without a balancer cannot tell: unknown.
 */
const ctx = useLabWorker("backend-header");

const REPLICAS = 3;
const BACKENDS = Array.from({ length: REPLICAS }, (_, i) => `app-${i}`);
let testbed = "";

beforeAll(async () => {
  testbed = (await ensureImages(ctx.docker, ["testbed"])).testbed;
}, 600_000);

const K6: TRunCreateInput["workload"] = { vus: 6, durationSeconds: 6, request: { method: "GET", path: "/hostname" } };
const WRK: TRunCreateInput["workload"] = {
  loadgen: "wrk",
  connections: 12,
  threads: 1,
  durationSeconds: 6,
  request: { method: "GET", path: "/hostname" },
};

async function run(
  balancer: NonNullable<TRunCreateInput["topology"]["balancer"]>,
  workload: TRunCreateInput["workload"],
  faults: TRunCreateInput["faults"] = [],
  failing = false,
) {
  const id = await ctx.lab.createRun({
    name: `backend header ${JSON.stringify(balancer)} ${workload.loadgen ?? "k6"}`,
    topology: {
      balancer,
      service: {
        kind: "image",
        image: testbed,
        port: 8080,
        healthPath: "/health",
        env: { TESTBED_BACKEND_HEADER: "off" },
        replicas: REPLICAS,
        memoryMb: 64,
      },
    },
    workload,
    faults,
  });
  const row = await ctx.lab.finished(id);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
  expect(row.status).toBe("succeeded");
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  const summary = ZRunSummary.parse(row.summary);
  expect(summary.requests).toBeGreaterThan(100);
  if (!failing) expect(summary.errors).toBe(0);
  const backends = summary.backends ?? {};
  console.log(
    `${JSON.stringify(balancer)} ${workload.loadgen ?? "k6"}: ${summary.requests} requests, per backend ${JSON.stringify(backends)}`,
  );
  const samples = await ctx.lab.db.runSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  return { summary, backends, samples };
}

/** Every replica, by name, within 10 % of an even share; nothing under another name. */
function expectEven(backends: Record<string, number>, requests: number) {
  expect(Object.keys(backends).sort()).toEqual(BACKENDS);
  const even = requests / REPLICAS;
  for (const name of BACKENDS) {
    expect(backends[name], name).toBeGreaterThanOrEqual(even * 0.9);
    expect(backends[name], name).toBeLessThanOrEqual(even * 1.1);
  }
}

describe("a service without X-Backend", () => {
  it("nginx round robin, k6: per-replica counts from the balancer's header, even; samples named too", async () => {
    const { summary, backends, samples } = await run({ kind: "nginx", algorithm: "round_robin" }, K6);
    expectEven(backends, summary.requests);
    expect(summary.backendSource).toBe("balancer");
    expect(Object.keys(summary.backendStats ?? {}).sort()).toEqual(BACKENDS);
    expect(summary.imbalance?.run).toBeLessThan(1.1);
    // The per-second rows (what the chart and the fault effects read) carry the names, not addresses.
    for (const s of samples) for (const name of Object.keys(s.backends as object)) expect(BACKENDS).toContain(name);
  });

  it("HAProxy roundrobin, k6: per-replica counts from the server's address, even", async () => {
    const { summary, backends } = await run({ kind: "haproxy", algorithm: "roundrobin" }, K6);
    expectEven(backends, summary.requests);
  });

  it("nginx round robin, wrk: sl-wrk counts the balancer's header, even", async () => {
    const { summary, backends } = await run({ kind: "nginx", algorithm: "round_robin" }, WRK);
    expectEven(backends, summary.requests);
    expect(summary.backendSource).toBe("balancer");
  });

  it("a delay on app-1 puts its fault proxy in nginx's path: the proxy's address still counts as app-1", async () => {
    const { summary, backends } = await run({ kind: "nginx", algorithm: "round_robin" }, K6, [
      { at: 1, action: "delay", ms: 5, target: { role: "app", index: 1 } },
    ]);
    expectEven(backends, summary.requests);
    expect(summary.faults?.[0]).toMatchObject({ action: "delay", failedRequests: 0 });
  });

  it.each([
    { kind: "nginx", algorithm: "round_robin" },
    { kind: "haproxy", algorithm: "roundrobin" },
  ] as const)(
    "a replica killed behind $kind: the balancer's own errors are its, not the replica's; the fault's shift is measured",
    async (balancer) => {
      const { summary } = await run(
        { ...balancer, retryNextUpstream: false, maxFails: 1, failTimeoutSeconds: 30 },
        K6,
        [{ at: 2, action: "kill", target: { role: "app", index: 1 } }],
        true,
      );
      const stats = summary.backendStats ?? {};
      console.log(`${balancer.kind}, killed app-1: errors ${JSON.stringify(summary.errorKinds)}, per backend ${JSON.stringify(stats)}`);
      for (const name of Object.keys(stats)) expect([...BACKENDS, BALANCER_KEY, NO_ANSWER_KEY]).toContain(name);
      expect(errorCount(stats[BALANCER_KEY]?.errors)).toBeGreaterThanOrEqual(1);
      expect(stats["app-1"]?.errors ?? {}).toEqual({});
      expect(summary.faults?.[0]?.shiftSeconds).not.toBeNull();
    },
  );

  it("no balancer, k6: the address each connection reached, mapped to the replicas", async () => {
    const { summary, backends } = await run({ kind: "none" }, K6);
    expect(summary.backendSource).toBe("address");
    for (const name of Object.keys(backends)) expect(BACKENDS).toContain(name);
    expect(Object.values(backends).reduce((a, b) => a + b, 0)).toBe(summary.requests);
  });

  it("no balancer, wrk: nothing says who answered: unknown, no imbalance, a finding says so", async () => {
    const { summary, backends } = await run({ kind: "none" }, WRK);
    expect(summary.backendSource).toBe("unknown");
    // No replica is named: nothing counts as answered by one; every request is under "unknown".
    expect(backends).toEqual({});
    expect(Object.keys(summary.backendStats ?? {})).toEqual(["unknown"]);
    expect(summary.backendStats?.unknown?.requests).toBe(summary.requests);
    expect(summary.imbalance).toBeUndefined();
    expect(runFindings({ summary, hostCpus: 2 }).map((f) => f.code)).toContain("backends_unknown");
  });
});
