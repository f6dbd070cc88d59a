import { FIGURE_DEFS } from "@scalelab/scenarios/components";
import { TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { succeededRun, useLabWorker } from "./testing/lab";

/*
 * Every new component for real, through the queue and the worker, against the real Docker engine,
 * Postgres and Redis: sync and async (Kafka) downstream work, Postgres and Cassandra writes and
 * reads. Each test asserts the figures the run stored. What compares throughput with a bound (the
 * blocking worker pool, RabbitMQ against the sync call) is in components-throughput, on a quiet host.
 */
const ctx = useLabWorker("components");

const run = (body: TRunCreateInput, timeoutMs?: number) => succeededRun(ctx.lab, body, timeoutMs);

describe("downstream work", () => {
  it("sync: every request waits for the logs service, which handles each event", async () => {
    const r = await run({
      topology: { service: { replicas: 1 }, downstream: { mode: "sync", replicas: 2, cpuIterations: 200 } },
      workload: { endpoint: "cpu", vus: 2, durationSeconds: 5 },
    });
    expect(r.summary.errors).toBe(0);
    const handled = r.figures.reduce((n, f) => n + (f["logs.handled"] ?? 0), 0);
    const sent = r.figures.reduce((n, f) => n + (f["downstream.sent"] ?? 0), 0);
    expect(handled).toBeGreaterThan(0);
    expect(handled).toBeCloseTo(sent, -1);
  });

  it("async: Kafka takes the events, the consumers work them off, and the lag is recorded", async () => {
    const r = await run(
      {
        topology: {
          service: { replicas: 1 },
          downstream: { mode: "async", replicas: 2, cpus: 0.2, cpuIterations: 3000 },
          broker: { kind: "kafka", memoryMb: 512 },
        },
        workload: { endpoint: "cpu", vus: 4, durationSeconds: 6 },
      },
      600_000,
    );
    expect(r.summary.errors).toBe(0);
    const broker = r.summary.broker!;
    expect(broker.produced).toBeGreaterThan(0);
    // Acknowledgements are counted from the load's start; a late one of the warm-up may land in it.
    expect(Math.abs(broker.produced - r.summary.requests)).toBeLessThanOrEqual(Math.max(10, r.summary.requests * 0.02));
    expect(broker.consumed).toBeGreaterThan(0);
    expect(broker.consumed).toBeLessThanOrEqual(broker.produced + broker.backlogAtStart! + 10);
    expect(broker.maxLag).toBeGreaterThan(0);
    expect(r.figures.some((f) => "broker.lag" in f)).toBe(true);
    expect(r.events).toContainEqual(expect.stringMatching(/^the Kafka broker ready in/));
    for (const key of Object.keys(r.figures[0]!).filter((k) => k !== "t")) {
      expect(FIGURE_DEFS.map((d) => d.key)).toContain(key);
    }
  });
});

describe("storage", () => {
  it.each(["postgres", "cassandra"] as const)("%s: activity writes and product reads without errors", async (kind) => {
    const storage = { kind, cpus: 1, memoryMb: 1024, poolSize: 4, products: 50 };
    const writes = await run(
      { topology: { service: { replicas: 1 }, storage }, workload: { endpoint: "activity", vus: 4, durationSeconds: 5 } },
      600_000,
    );
    expect(writes.summary.requests).toBeGreaterThan(10);
    expect(writes.summary.errors).toBe(0);
    expect(writes.events).toContainEqual(
      expect.stringMatching(new RegExp(`^the ${kind === "postgres" ? "Postgres" : "Cassandra"} store ready in`)),
    );

    const reads = await run(
      { topology: { service: { replicas: 1 }, storage }, workload: { endpoint: "products", vus: 2, durationSeconds: 5 } },
      600_000,
    );
    expect(reads.summary.requests).toBeGreaterThan(10);
    expect(reads.summary.errors).toBe(0);
  });
});
