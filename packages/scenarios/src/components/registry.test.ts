import { describe, expect, it } from "vitest";
import { TRunCreateInput, ZRunCreate } from "../contract/run";
import { LAB_IMAGES } from "./types";
import { buildPlan } from "../plan/plan";
import { COMPONENTS, faultableRoles, runRoles } from "./registry";

const images = Object.fromEntries(LAB_IMAGES.map((i) => [i, `scalelab/${i}:test`]));

/** Runs that between them use every component kind and slot. */
const RUNS: Record<string, TRunCreateInput> = {
  "3 replicas behind nginx": { topology: { service: { replicas: 3, cpus: 0.2 } }, workload: { vus: 3 } },
  "haproxy, sync logs, postgres": {
    topology: {
      balancer: { kind: "haproxy", cpus: 0.5 },
      service: { replicas: 2 },
      downstream: { mode: "sync", replicas: 2, cpus: 0.3 },
      storage: { kind: "postgres", cpus: 1 },
    },
    workload: { endpoint: "products", vus: 4 },
  },
  "no balancer, async through Kafka, cassandra": {
    topology: {
      balancer: { kind: "none" },
      service: { replicas: 4 },
      downstream: { mode: "async", replicas: 3 },
      broker: { cpus: 1, memoryMb: 768 },
      storage: { kind: "cassandra", memoryMb: 2048 },
    },
    workload: { endpoint: "activity", loadgen: "wrk", connections: 40, loadgenInstances: 2 },
  },
  "async through RabbitMQ": {
    topology: { service: { replicas: 2 }, downstream: { mode: "async", replicas: 2, cpus: 0.2 }, broker: { kind: "rabbitmq", cpus: 0.5 } },
    workload: { endpoint: "cpu", vus: 2 },
  },
  "hot key from Redis": {
    topology: { service: { kind: "rack", replicas: 2 }, balancer: { kind: "none" } },
    workload: { endpoint: "key", loadgen: "wrk", connections: 20 },
  },
  "testbed's key endpoint": { topology: { service: { replicas: 1 } }, workload: { endpoint: "key", vus: 1 } },
};

const counts = (roles: { role: string; count: number }[]) => {
  const out: Record<string, number> = {};
  for (const r of roles) if (r.count > 0) out[r.role] = (out[r.role] ?? 0) + r.count;
  return out;
};

describe("the components' declared roles", () => {
  it.each(Object.entries(RUNS))("match what they plan: %s", (_, input) => {
    const run = ZRunCreate.parse(input);
    const plan = buildPlan({ runId: "cm3x9k2abc0001", run, images });
    const planned = counts([...plan.containers, ...plan.loadgens].map((c) => ({ role: c.role, count: 1 })));
    expect(counts(runRoles(run))).toEqual(planned);
    for (const c of [...plan.containers, ...plan.loadgens]) {
      const declared = runRoles(run).find((r) => r.role === c.role)!;
      expect(c.cpus, `${c.name} cpus`).toEqual(declared.cpus);
      if (c.memoryBytes !== undefined) expect(c.memoryBytes / 1024 / 1024, `${c.name} memory`).toBe(declared.memoryMb);
      expect((c.ports?.length ?? 0) > 0, `${c.name} takes connections`).toBe(declared.incoming);
    }
  });

  it("give fault validation its targets without planning the run", () => {
    const run = ZRunCreate.parse(RUNS["no balancer, async through Kafka, cassandra"]);
    expect(faultableRoles(run)).toEqual({
      db: { count: 1, title: "store (db)", incoming: false },
      kafka: { count: 1, title: "broker (kafka)", incoming: true },
      app: { count: 4, title: "replicas (app)", incoming: true },
      consumer: { count: 3, title: "consumers (consumer)", incoming: false },
    });
  });

  it("are each component's own: no two kinds share a kind name", () => {
    const kinds = COMPONENTS.map((c) => c.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
  });
});
