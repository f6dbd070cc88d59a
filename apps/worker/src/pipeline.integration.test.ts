import { randomUUID } from "node:crypto";
import { Db } from "@scalelab/db";
import { CORE_LAB_IMAGES, ensureImages } from "@scalelab/images";
import { LABELS, runLabels, LabImage } from "@scalelab/scenarios/plan";
import { ZHostFacts, ZRunCreate, ZRunSummary, TRunCreateInput } from "@scalelab/scenarios/contract";
import { Queue } from "bullmq";
import Docker from "dockerode";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instanceId, parseEnv } from "./env";
import { createLogger } from "./log";
import { PrepareImages } from "./pipeline/context";
import { cancelChannel, encodeCancelMessage, HOST_KEY, runChannel, runJob } from "@scalelab/scenarios/messages";
import { openLab, waitFor, Lab } from "./testing/lab";
import { start, WorkerHandle } from "./worker";

/*
 * Against the real Docker engine, Postgres (DATABASE_URL, migrated here) and Redis (REDIS_URL).
 * A missing service fails the suite in beforeAll with the reason; nothing is skipped.
 */
const env = parseEnv();
const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
let db: Db;
let redis: Redis;
let queue: Queue;
let worker: WorkerHandle | undefined;
/** When set, replicas of the next runs use this image instead of the testbed. */
let testbedOverride: ((images: Partial<Record<LabImage, string>>) => string) | undefined;

const prepareImages: PrepareImages = async (d, names, opts) => {
  const images = await ensureImages(d, names, opts);
  return testbedOverride ? { ...images, testbed: testbedOverride(images) } : images;
};

let lab: Lab;
const createRun = (body: TRunCreateInput, opts?: { enqueue?: boolean; status?: string }) => lab.createRun(body, opts);
const finished = (id: string, timeoutMs?: number) => lab.finished(id, timeoutMs);
const leftovers = (runId: string) => lab.leftovers(runId);

const twoReplicas = (durationSeconds: number): TRunCreateInput => ({
  name: "integration: 2 replicas",
  topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 2, memoryMb: 128 } },
  workload: { endpoint: "hostname", vus: 2, durationSeconds, loadgenCpus: 1 },
});

// A run a killed worker left behind, with a network of its own, for the start-up checks.
const orphanId = randomUUID();

beforeAll(async () => {
  lab = await openLab(env, docker);
  ({ db, redis, queue } = lab);
  // Build (or find) the images first so the tests' own timeouts measure runs, not a cold build.
  const images = await ensureImages(docker, CORE_LAB_IMAGES);

  // What `kill -9` of a worker mid-run leaves: a run marked running, samples so far, a live
  // replica on the run's network.
  const orphan = ZRunCreate.parse(twoReplicas(5));
  await db.run.create({ data: { id: orphanId, topology: orphan.topology, workload: orphan.workload, status: "running", step: "running" } });
  await db.runSample.create({
    data: { runId: orphanId, t: 0, requests: 10, errors: 0, latAvg: 1, latP50: 1, latP90: 1, latP95: 1, latP99: 1, latMax: 1 },
  });
  const orphanLabels = runLabels(orphanId, instanceId(env));
  const network = `sl-run-${orphanId}`;
  await docker.createNetwork({ Name: network, Labels: orphanLabels });
  const replica = await docker.createContainer({
    name: `sl-${orphanId.slice(0, 8)}-app-0`,
    Image: images.testbed,
    Labels: { ...orphanLabels, [LABELS.role]: "app" },
    HostConfig: { NetworkMode: network },
  });
  await replica.start();

  worker = await start({ env, log: createLogger("worker:test"), prepareImages, timeouts: { healthyMs: 20_000 } });
});

afterAll(async () => {
  await worker?.close();
  await lab?.close();
});

describe("worker start-up", () => {
  it("marks a run left running as interrupted and sweeps its objects", async () => {
    const run = await db.run.findUniqueOrThrow({ where: { id: orphanId } });
    expect(run.status).toBe("interrupted");
    expect(run.error).toMatch(/^interrupted: the worker stopped during running/);
    expect(await db.runSample.count({ where: { runId: orphanId } })).toBe(1);
    expect(await leftovers(orphanId)).toEqual([]);
  });

  it("publishes the host's facts", async () => {
    const host = JSON.parse((await redis.get("scalelab:host"))!);
    expect(host.cpus).toBeGreaterThan(0);
    expect(host.memoryBytes).toBeGreaterThan(0);
    expect(host.dockerVersion).toBeTruthy();
  });
});

describe("run pipeline", () => {
  it("runs 2 replicas behind nginx under k6 and records samples, stats and a summary", async () => {
    const sub = redis.duplicate();
    const messages: { type: string; status?: string }[] = [];
    const id = randomUUID();
    await sub.subscribe(runChannel(id));
    sub.on("message", (_ch, m) => messages.push(JSON.parse(m)));

    const body = ZRunCreate.parse(twoReplicas(5));
    await db.run.create({ data: { id, name: body.name, topology: body.topology, workload: body.workload } });
    const job = runJob(id);
    await queue.add(job.name, job.data, job.opts);
    const run = await finished(id);
    sub.disconnect();

    expect(run.error).toBeNull();
    expect(run.status).toBe("succeeded");
    expect(run.step).toBe("done");
    expect(run.loadStartedAt).toBeInstanceOf(Date);
    const summary = ZRunSummary.parse(run.summary);
    expect(summary.requests).toBeGreaterThan(0);
    expect(summary.durationSeconds).toBe(body.workload.durationSeconds);
    expect(summary.rps).toBeCloseTo(summary.requests / body.workload.durationSeconds, 0);
    expect(Object.keys(summary.backends ?? {}).sort()).toEqual(["app-0", "app-1"]);
    expect(run.host).toMatchObject({ k6Version: "v1.4.2" });

    const samples = await db.runSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(samples.reduce((n, s) => n + s.requests, 0)).toBeGreaterThan(0);
    const seen = new Set(samples.flatMap((s) => Object.keys((s.backends ?? {}) as Record<string, number>)));
    expect([...seen].sort()).toEqual(["app-0", "app-1"]);

    const stats = await db.containerSample.findMany({ where: { runId: id } });
    expect(new Set(stats.map((s) => s.role))).toEqual(new Set(["app", "lb", "loadgen"]));
    expect(stats.some((s) => s.role === "loadgen" && s.cpuPct > 0)).toBe(true);

    const steps = (await db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } })).map((e) => e.message);
    for (const step of ["preparing_images", "provisioning", "waiting_healthy", "warmup", "running", "collecting", "tearing_down"]) {
      expect(steps).toContainEqual(expect.stringMatching(new RegExp(`^${step} took`)));
    }
    // 2 replicas without a CPU limit and the load generator's 1 CPU: nothing over-subscribed to say.
    expect(steps.filter((m) => m.includes("CPU limits add up"))).toEqual([]);
    expect(new Set(messages.map((m) => m.type))).toEqual(new Set(["status", "event", "sample", "containers", "figures"]));
    expect(messages.filter((m) => m.type === "status").at(-1)).toMatchObject({ status: "succeeded" });
    expect(await leftovers(id)).toEqual([]);
  });

  it("says on the timeline, before any container starts, that the containers' CPU limits add up to more than the host's cores", async () => {
    const host = ZHostFacts.parse(JSON.parse((await redis.get(HOST_KEY))!));
    const body = twoReplicas(5);
    const id = await createRun({ ...body, topology: { ...body.topology, service: { ...body.topology.service, cpus: host.cpus } } });
    const run = await finished(id);
    expect(run.status).toBe("succeeded");
    const events = (await db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } })).map((e) => `${e.level} ${e.message}`);
    const warning = `warn the containers' CPU limits add up to ${2 * host.cpus + 1} cores on this ${host.cpus}-core host: they will share the cores, so the figures measure the sharing too`;
    expect(events.filter((e) => e.includes("CPU limits add up"))).toEqual([warning]);
    // Said while the images are checked, before the provisioning step starts any container.
    expect(events.indexOf(warning)).toBeLessThan(events.findIndex((e) => e.startsWith("info preparing_images took")));
  });

  it("fails a run whose replica image does not exist, naming it, and leaves nothing", async () => {
    testbedOverride = () => "scalelab/testbed:does-not-exist";
    try {
      const run = await finished(await createRun(twoReplicas(5)));
      expect(run.status).toBe("failed");
      expect(run.step).toBe("provisioning");
      expect(run.error).toMatch(/could not start replica app-\d .*scalelab\/testbed:does-not-exist.*No such image/i);
      expect(await leftovers(run.id)).toEqual([]);
    } finally {
      testbedOverride = undefined;
    }
  });

  it("fails a run whose replica exits, with its exit code and output, and leaves nothing", async () => {
    // k6 without arguments prints its usage and exits: a replica that starts and dies at once.
    testbedOverride = (images) => images.k6!;
    try {
      const run = await finished(await createRun(twoReplicas(5)));
      expect(run.status).toBe("failed");
      expect(run.step).toBe("provisioning");
      expect(run.error).toMatch(/replica app-\d \(sl-\w+-app-\d\) exited with code \d+/);
      expect(run.error).toMatch(/last output:\n[\s\S]*k6/);
      expect(await leftovers(run.id)).toEqual([]);
    } finally {
      testbedOverride = undefined;
    }
  });

  it("cancels a running run within about two seconds and leaves nothing", async () => {
    const id = await createRun(twoReplicas(60));
    await waitFor("the first sample", 120_000, async () => ((await db.runSample.count({ where: { runId: id } })) > 0 ? true : undefined));
    const asked = Date.now();
    await db.run.update({ where: { id }, data: { cancelRequested: true } });
    await redis.publish(cancelChannel(id), encodeCancelMessage(id));
    const run = await finished(id, 30_000);
    const tookMs = Date.now() - asked;
    console.log(`cancel → cancelled in ${tookMs} ms`);
    expect(run.status).toBe("cancelled");
    expect(run.step).toBe("running");
    // A sanity bound, not a speed test: the run would otherwise go on for 60 s.
    expect(tookMs).toBeLessThan(15_000);
    expect(await leftovers(id)).toEqual([]);
  });

  it("does not start a second copy of a run that is no longer queued", async () => {
    const id = await createRun(twoReplicas(5), { status: "succeeded" });
    const job = await queue.getJob(id);
    await waitFor("the job to be processed", 30_000, async () => ((await job!.getState()) === "completed" ? true : undefined));
    const run = await db.run.findUniqueOrThrow({ where: { id } });
    expect(run.status).toBe("succeeded");
    expect(run.startedAt).toBeNull();
    expect(await leftovers(id)).toEqual([]);
  });
});
