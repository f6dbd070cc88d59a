import { randomUUID } from "node:crypto";
import { createDb } from "@scalelab/db";
import { ZRunCreate, type TRunCreateInput } from "@scalelab/scenarios/contract";
import { Queue } from "bullmq";
import Docker from "dockerode";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/env";
import { RedisChannels } from "../channels";
import { runChannel } from "@scalelab/scenarios/messages";
import { AppError } from "../errors";
import type { Deps, RunQueue } from "../runtime";
import { liveRun } from "./live";
import { cancelRun, createRun, getFigures, getRun, readHostBounds } from "./service";

// Real Postgres and Redis (DATABASE_URL, REDIS_URL); a queue of its own so no worker takes these jobs.
const env = getEnv();
const queueName = `scalelab-runs-test-${randomUUID().slice(0, 8)}`;
const created: string[] = [];
let deps: Deps;
let sub: Redis;

const body = (over: Partial<TRunCreateInput["topology"]["service"]> = {}) =>
  ZRunCreate.parse({
    name: `integration ${randomUUID().slice(0, 8)}`,
    topology: { service: { replicas: 1, memoryMb: 64, ...over } },
    workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 },
  });

beforeAll(() => {
  sub = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  deps = {
    db: createDb(env.DATABASE_URL),
    redis: new Redis(env.REDIS_URL),
    queue: new Queue(queueName, { connection: new Redis(env.REDIS_URL, { maxRetriesPerRequest: null }) }),
    channels: new RedisChannels(sub),
    docker: new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET }),
  };
});

afterAll(async () => {
  await deps.db.run.deleteMany({ where: { id: { in: created } } });
  await deps.queue.obliterate({ force: true });
  await deps.queue.close();
  await deps.db.$disconnect();
  deps.redis.disconnect();
  sub.disconnect();
});

describe("createRun", () => {
  it("stores a queued run and enqueues job `run` with the run id as job id", async () => {
    const ref = await createRun(deps, body());
    created.push(ref.id);
    expect(ref.status).toBe("queued");
    expect((await getRun(deps, ref.id)).status).toBe("queued");
    const job = await deps.queue.getJob(ref.id);
    expect(job?.name).toBe("run");
    expect(job?.data).toEqual({ runId: ref.id });
  });

  it("refuses a CPU limit beyond the host, naming the field, and stores nothing", async () => {
    const host = await readHostBounds(deps.redis);
    const run = body({ cpus: Math.min(64, host.cpus + 1) });
    const err = await createRun(deps, run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).issues[0]?.path).toBe("topology.service.cpus");
    expect(await deps.db.run.count({ where: { name: run.name } })).toBe(0);
  });

  it("removes the run row again when the queue cannot be reached", async () => {
    const connection = new Redis("redis://127.0.0.1:1", { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    connection.on("error", () => {});
    const unreachable = new Queue(queueName, { connection });
    unreachable.on("error", () => {});
    const run = body();
    const err = await createRun({ ...deps, queue: unreachable as RunQueue }, run).catch((e: unknown) => e);
    expect((err as AppError).kind).toBe("unavailable");
    expect(await deps.db.run.count({ where: { name: run.name } })).toBe(0);
    await unreachable.close().catch(() => {});
  }, 15_000);
});

describe("cancelRun", () => {
  it("takes a queued run out of the queue, marks it cancelled and tells live viewers", async () => {
    const ref = await createRun(deps, body());
    created.push(ref.id);
    const messages: string[] = [];
    const stop = await deps.channels.listen(runChannel(ref.id), (m) => messages.push(m));

    expect(await cancelRun(deps, ref.id)).toEqual({ id: ref.id, status: "cancelled" });
    expect(await deps.queue.getJob(ref.id)).toBeUndefined();
    expect(await getRun(deps, ref.id)).toMatchObject({ status: "cancelled", cancelRequested: true });
    await expect.poll(() => messages.map((m) => JSON.parse(m).status)).toContain("cancelled");
    stop();

    await expect(cancelRun(deps, ref.id)).rejects.toMatchObject({ kind: "conflict" });
  });
});

describe("liveRun", () => {
  it("yields the stored run, relays the worker's messages and ends with the run's final state", async () => {
    const ref = await createRun(deps, body());
    created.push(ref.id);
    await deps.queue.remove(ref.id);
    const abort = new AbortController();
    const live = liveRun(deps, ref.id, abort.signal);

    const first = await live.next();
    expect(first.value).toMatchObject({ type: "snapshot", run: { id: ref.id, status: "queued" }, samples: [], figures: [] });

    const sample = { t: 0, requests: 42, errors: 0, latencyMs: { avg: 1, p50: 1, p90: 2, p95: 2, p99: 3, max: 4 } };
    const publish = (m: object) => deps.redis.publish(runChannel(ref.id), JSON.stringify(m));
    const next = live.next();
    await publish({ type: "sample", sample });
    expect((await next).value).toEqual({ type: "sample", sample });

    // An event as the worker reports it: stored, then published with its row's id; a reader that read the row shows it once.
    const row = await deps.db.runEvent.create({ data: { runId: ref.id, step: "queued", level: "info", message: "queued took 0.1 s" } });
    const event = { type: "event", id: row.id.toString(), level: "info", step: "queued", message: "queued took 0.1 s" };
    const relayed = live.next();
    await publish(event);
    expect((await relayed).value).toEqual(event);
    const again = liveRun(deps, ref.id, new AbortController().signal);
    expect((await again.next()).value).toMatchObject({
      type: "snapshot",
      events: [{ id: row.id.toString(), message: "queued took 0.1 s" }],
    });
    await again.return(undefined);

    await deps.db.run.update({ where: { id: ref.id }, data: { status: "succeeded", step: "done" } });
    const status = live.next();
    await publish({ type: "status", status: "succeeded", step: "done", stepDetail: null, error: null });
    expect((await status).value).toMatchObject({ type: "status", status: "succeeded" });
    expect((await live.next()).value).toMatchObject({ type: "run", run: { status: "succeeded" } });
    expect((await live.next()).done).toBe(true);
  });
});

describe("figures", () => {
  it("reads a run's component figures in order of the second, and 404s for an unknown run", async () => {
    const ref = await createRun(deps, body());
    created.push(ref.id);
    await deps.queue.remove(ref.id);
    await deps.db.figureSample.createMany({
      data: [
        { runId: ref.id, t: 1, figures: { "broker.lag": 7, "broker.produced": 40 } },
        { runId: ref.id, t: 0, figures: { "broker.lag": 2, "broker.produced": 30 } },
      ],
    });
    expect(await getFigures(deps, ref.id)).toEqual([
      { t: 0, figures: { "broker.lag": 2, "broker.produced": 30 } },
      { t: 1, figures: { "broker.lag": 7, "broker.produced": 40 } },
    ]);
    const live = liveRun(deps, ref.id, new AbortController().signal);
    expect((await live.next()).value).toMatchObject({ type: "snapshot", figures: [{ t: 0 }, { t: 1 }] });
    await live.return(undefined);

    const err = await getFigures(deps, randomUUID()).catch((e: unknown) => e);
    expect((err as AppError).kind).toBe("not_found");
  });
});
