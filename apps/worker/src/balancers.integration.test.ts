import { ZRunSummary, type TRunCreateInput } from "@scalelab/scenarios/schemas";
import { describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * The balancer kinds for real, through the queue and the worker, against the real Docker engine,
 * Postgres and Redis: 4 replicas answering their host name, 4 VUs for 5 s, and the per-backend
 * counts k6 took from X-Backend.
 */
const ctx = useLabWorker("balancers");


const REPLICAS = 4;
const BACKENDS = Array.from({ length: REPLICAS }, (_, i) => `app-${i}`);

async function run(balancer: NonNullable<TRunCreateInput["topology"]["balancer"]>) {
  const id = await ctx.lab.createRun({
    name: `balancer ${JSON.stringify(balancer)}`,
    topology: { balancer, service: { replicas: REPLICAS, memoryMb: 64 } },
    workload: { endpoint: "hostname", vus: 4, durationSeconds: 5 },
  });
  const row = await ctx.lab.finished(id);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
  expect(row.status).toBe("succeeded");
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  const summary = ZRunSummary.parse(row.summary);
  expect(summary.requests).toBeGreaterThan(100);
  expect(summary.errors).toBe(0);
  const backends = summary.backends ?? {};
  console.log(`${JSON.stringify(balancer)}: ${summary.requests} requests, per backend ${JSON.stringify(backends)}`);
  for (const name of Object.keys(backends)) expect(BACKENDS).toContain(name);
  expect(Object.values(backends).reduce((a, b) => a + b, 0)).toBe(summary.requests);
  return { summary, backends };
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

  it("haproxy roundrobin, finding the replicas through Docker's DNS, spreads evenly", async () => {
    const { summary, backends } = await run({ kind: "haproxy", algorithm: "roundrobin" });
    expectEven(backends, summary.requests);
  });

  it("nginx ip_hash sends everything from the one load generator to one replica", async () => {
    const { summary, backends } = await run({ kind: "nginx", algorithm: "ip_hash" });
    expect(Object.values(backends)).toEqual([summary.requests]);
  });

  it("none: the load goes to the service's shared alias and Docker's DNS spreads it as it will", async () => {
    await run({ kind: "none" });
  });
});
