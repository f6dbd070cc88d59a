import { randomUUID } from "node:crypto";
import { createDb, Db } from "@scalelab/db";
import { migrate } from "@scalelab/db/migrate";
import { RUN_QUEUE, runJob } from "@scalelab/scenarios/messages";
import { LABELS } from "@scalelab/scenarios/plan";
import { isTerminal, ZRunCreate, ZRunSummary, TRunCreateInput, TRunStatus } from "@scalelab/scenarios/contract";
import { Queue } from "bullmq";
import Docker from "dockerode";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect } from "vitest";
import { parseEnv, Env } from "../env";
import { createLogger } from "../log";
import { start, StartOptions, WorkerHandle } from "../worker";

/**
 * What the worker's integration tests share: the real Postgres (migrated here), Redis and Docker
 * engine of the test control plane. A missing service fails the suite with the reason; nothing is
 * skipped.
 */
export type Lab = Awaited<ReturnType<typeof openLab>>;

async function reach(what: string, check: () => Promise<unknown>) {
  try {
    await check();
  } catch (err) {
    throw new Error(`integration tests need ${what}: ${(err as Error).message}`);
  }
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function openLab(env: Env, docker: Docker) {
  await reach(`Docker at ${env.SCALELAB_DOCKER_SOCKET}`, () => docker.ping());
  await reach("Postgres at DATABASE_URL", () => migrate(env.DATABASE_URL));
  const redis = new Redis(env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await reach("Redis at REDIS_URL", () => redis.connect());
  const db: Db = createDb(env.DATABASE_URL);
  const queue = new Queue(RUN_QUEUE, { connection: redis.duplicate({ lazyConnect: false, maxRetriesPerRequest: 20 }) });

  const createRun = async (body: TRunCreateInput, opts: { enqueue?: boolean; status?: string } = {}): Promise<string> => {
    const id = randomUUID();
    const run = ZRunCreate.parse(body);
    await db.run.create({
      data: {
        id,
        name: run.name,
        engine: run.engine,
        topology: run.topology,
        workload: run.workload,
        faults: run.faults,
        thresholds: run.thresholds,
        status: opts.status ?? "queued",
      },
    });
    if (opts.enqueue !== false) {
      const job = runJob(id);
      await queue.add(job.name, job.data, job.opts);
    }
    return id;
  };

  const finished = (id: string, timeoutMs = 240_000) =>
    waitFor(`run ${id} to finish`, timeoutMs, async () => {
      const run = await db.run.findUniqueOrThrow({ where: { id } });
      return isTerminal(run.status as TRunStatus) ? run : undefined;
    });

  const leftovers = async (runId: string): Promise<string[]> => {
    const filters = { label: [`${LABELS.run}=${runId}`] };
    const [containers, networks] = await Promise.all([docker.listContainers({ all: true, filters }), docker.listNetworks({ filters })]);
    return [...containers.map((c) => `container ${c.Names[0]}`), ...networks.map((n) => `network ${n.Name}`)];
  };

  return {
    db,
    redis,
    queue,
    createRun,
    finished,
    leftovers,
    async close() {
      await queue.close();
      redis.disconnect();
      await db.$disconnect();
    },
  };
}

/**
 * Creates a run, waits for its end, and checks that it succeeded (its timeline as the message if not)
 * and left nothing behind; returns its summary, timeline and per-second component figures.
 */
export async function succeededRun(lab: Lab, body: TRunCreateInput, timeoutMs?: number) {
  const id = await lab.createRun(body);
  const row = await lab.finished(id, timeoutMs);
  const events = await lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
  expect(row.status).toBe("succeeded");
  expect(await lab.leftovers(id)).toEqual([]);
  const figures = await lab.db.figureSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  return {
    id,
    summary: ZRunSummary.parse(row.summary),
    events: events.map((e) => e.message),
    figures: figures.map((f): Record<string, number> => ({ t: f.t, ...(f.figures as Record<string, number>) })),
  };
}

/**
 * For a test file: opens the lab and starts a worker (labelled `worker:<name>` in the log) before
 * its tests, and closes both after them. `lab` is there once the tests run.
 */
export function useLabWorker(name: string, opts: Omit<StartOptions, "env" | "log"> = {}) {
  const env = parseEnv();
  const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
  let lab: Lab | undefined;
  let worker: WorkerHandle | undefined;
  beforeAll(async () => {
    lab = await openLab(env, docker);
    worker = await start({ env, log: createLogger(`worker:${name}`), ...opts });
  });
  afterAll(async () => {
    await worker?.close();
    await lab?.close();
  });
  return {
    env,
    docker,
    get lab(): Lab {
      if (!lab) throw new Error("the lab is open only while the tests run");
      return lab;
    },
  };
}
