import { FIGURE_DEFS } from "@scalelab/scenarios/components";
import { ZRunSummary, TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * Every new component for real, through the queue and the worker, against the real Docker engine,
 * Postgres and Redis: a blocking worker pool, sync and async (Kafka, RabbitMQ) downstream work, Postgres and
 * Cassandra writes and reads. Each test asserts the figures the run stored.
 */
const ctx = useLabWorker("components");

async function run(body: TRunCreateInput, timeoutMs?: number) {
  const id = await ctx.lab.createRun(body);
  const row = await ctx.lab.finished(id, timeoutMs);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
  expect(row.status).toBe("succeeded");
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  const figures = await ctx.lab.db.figureSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  return {
    id,
    summary: ZRunSummary.parse(row.summary),
    events: events.map((e) => e.message),
    figures: figures.map((f): Record<string, number> => ({ t: f.t, ...(f.figures as Record<string, number>) })),
  };
}

const max = (rows: Record<string, number>[], key: string) => Math.max(...rows.map((r) => r[key] ?? 0));

describe("the service's runtime model", () => {
  it("a pool of 4 with blocking 50 ms flushes: pool full, a queue, throughput capped near 4 / 50 ms", async () => {
    const r = await run({
      topology: { service: { replicas: 1, workerPool: 4, logging: "blocking", logFlushMs: 50 } },
      workload: { endpoint: "hostname", vus: 16, durationSeconds: 5 },
    });
    expect(r.summary.errors).toBe(0);
    expect(r.summary.rps).toBeLessThan((4 / 0.05) * 1.15);
    expect(r.summary.pool).toMatchObject({ size: 4, maxBusy: 4 });
    expect(r.summary.pool!.maxQueued).toBeGreaterThanOrEqual(8);
    expect(max(r.figures, "pool.busy")).toBe(4);
    expect(r.summary.latencyMs.p50).toBeGreaterThan(150);
  });

  it("async logging with the same flush cost does not hold the workers", async () => {
    const r = await run({
      topology: { service: { replicas: 1, workerPool: 4, logging: "async", logFlushMs: 50 } },
      workload: { endpoint: "hostname", vus: 16, durationSeconds: 5 },
    });
    expect(r.summary.errors).toBe(0);
    expect(r.summary.rps).toBeGreaterThan((4 / 0.05) * 2);
  });
});

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

describe("experiment 4 with RabbitMQ", () => {
  it("async through RabbitMQ serves at least 1.5× the req/s of the sync call, at a lower p50, and counts what it produced and consumed", async () => {
    // The write-up's setup: service and downstream at 0.2 CPU, the cpu endpoint, one connection.
    const exp4 = (mode: "sync" | "async"): TRunCreateInput => ({
      name: `exp 4 rabbitmq: ${mode}`,
      topology: {
        service: { replicas: 1, cpus: 0.2 },
        downstream: { mode, replicas: 1, cpus: 0.2, cpuIterations: 1000 },
        ...(mode === "async" && { broker: { kind: "rabbitmq" as const, cpus: 1, memoryMb: 512 } }),
      },
      workload: { endpoint: "cpu", vus: 1, durationSeconds: 10 },
    });
    const sync = await run(exp4("sync"), 600_000);
    const async = await run(exp4("async"), 600_000);
    expect(sync.summary.errors).toBe(0);
    expect(async.summary.errors).toBe(0);
    expect(async.summary.rps, `async ${async.summary.rps} req/s, sync ${sync.summary.rps} req/s`).toBeGreaterThanOrEqual(
      1.5 * sync.summary.rps,
    );
    expect(async.summary.latencyMs.p50).toBeLessThan(sync.summary.latencyMs.p50);
    const broker = async.summary.broker!;
    // Confirms are counted from the load's start; a late one of the warm-up may land in it.
    expect(Math.abs(broker.produced - async.summary.requests)).toBeLessThanOrEqual(Math.max(10, async.summary.requests * 0.02));
    expect(broker.consumed).toBeGreaterThan(0);
    expect(broker.consumed).toBeLessThanOrEqual(broker.produced + broker.backlogAtStart! + 10);
    expect(async.summary.containers?.rabbitmq?.containers).toBe(1);
    expect(async.events).toContainEqual(expect.stringMatching(/^the RabbitMQ broker ready in/));
    expect(sync.summary.broker).toBeUndefined();
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
