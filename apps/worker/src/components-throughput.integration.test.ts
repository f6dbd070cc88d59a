import { TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { succeededRun, useLabWorker } from "./testing/lab";

/*
 * The components whose point is throughput, for real, through the queue and the worker, against the
 * real Docker engine, Postgres and Redis: a blocking worker pool caps req/s near its size over the
 * flush time, and async work through RabbitMQ serves more than the sync call. Their bounds hold on a
 * quiet host only (the test script runs this file alone: apps/worker/src/testing/lanes.ts).
 */
const ctx = useLabWorker("components-throughput");

const run = (body: TRunCreateInput, timeoutMs?: number) => succeededRun(ctx.lab, body, timeoutMs);

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
