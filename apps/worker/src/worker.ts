import { ZHostFacts } from "@scalelab/scenarios/contract";
import { createDb, Db } from "@scalelab/db";
import { ensureImages } from "@scalelab/images";
import { Queue, Worker } from "bullmq";
import Docker from "dockerode";
import { Redis } from "ioredis";
import { instanceId, Env } from "./env";
import { JobDefinition } from "./jobs/define";
import { runJob } from "./jobs/run";
import { createLogger, errorMessage, Logger } from "./log";
import { DEFAULT_TIMEOUTS, PipelineDeps, PrepareImages, Timeouts } from "./pipeline/context";
import { withDeadlines } from "./provisioner/deadlines";
import { DockerProvisioner } from "./provisioner/docker";
import { sweepEngines } from "./sweeper";
import { HOST_KEY, RUN_QUEUE, runChannel, RunJobData } from "@scalelab/scenarios/messages";
import { deleteIfAsked } from "./deletion";
import { retryIfWanted } from "./experiments";
import { encodeChannelMessage } from "@scalelab/scenarios/messages";
import { connect, producerConnection, queueConnection, subscriberConnection, workerConnection } from "./redis";
import { sweep } from "./sweeper";
import { acquireWorkerLock, stopWhenLost } from "./single-instance";

export type WorkerHandle = { close(): Promise<void> };

export type StartOptions = {
  env: Env;
  log?: Logger;
  /** Replaces `ensureImages` (tests use it to run a broken image). */
  prepareImages?: PrepareImages;
  timeouts?: Partial<Timeouts>;
  sweepIntervalMs?: number;
};

/**
 * Starts the run worker: checks Postgres, Redis and Docker (throwing a readable error when one is
 * unreachable), records the host's facts, marks runs a previous process left `running` as
 * `interrupted`, removes leftovers, then takes one run at a time from the queue.
 */
export async function start(opts: StartOptions): Promise<WorkerHandle> {
  const { env } = opts;
  const log = opts.log ?? createLogger();
  // One worker per database: throws, naming the holder, while another worker runs (single-instance.ts).
  const lock = await acquireWorkerLock(env.DATABASE_URL);
  const db = createDb(env.DATABASE_URL);
  const pub = producerConnection(env.REDIS_URL);
  const sub = subscriberConnection(env.REDIS_URL);
  const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const provisioner = withDeadlines(new DockerProvisioner(docker), timeouts.dockerCallMs);
  const instance = instanceId(env);
  for (const [name, conn] of [
    ["publisher", pub],
    ["subscriber", sub],
  ] as const) {
    conn.on("error", (err) => log.warn(`redis ${name}: ${errorMessage(err)}`));
  }
  // Adds the retries of experiments' runs; a producer connection, failing fast while Redis is away.
  const queueConn = queueConnection(env.REDIS_URL);
  const queue = new Queue<RunJobData>(RUN_QUEUE, { connection: queueConn });
  queue.on("error", (err) => log.warn(`redis queue: ${errorMessage(err)}`));
  const disconnect = async () => {
    await queue.close();
    queueConn.disconnect();
    pub.disconnect();
    sub.disconnect();
    await db.$disconnect();
    await lock.release();
  };

  let current: string | undefined;
  try {
    await reach("Postgres", () => db.$queryRaw`SELECT 1`);
    await reach("Redis", () => Promise.all([connect(pub), connect(sub), queue.waitUntilReady()]));
    await reach(`Docker at ${env.SCALELAB_DOCKER_SOCKET}`, () => docker.ping());
    const host = await provisioner.hostFacts();
    await pub.set(HOST_KEY, JSON.stringify(ZHostFacts.parse(host)));
    log.info("host", host);
    await markInterrupted(db, pub, queue, log);
    // A leftover that cannot be removed now is logged and tried again at the next sweep: it does not stop the worker.
    await sweep({ provisioner, db, instance, current: () => current, log }).catch((err) =>
      log.warn("sweep at start failed", { error: errorMessage(err) }),
    );
    // A Swarm engine may be slow or away: its sweep does not hold up the start.
    void sweepEngines({ db, docker, instance, current: () => current, log, callMs: timeouts.dockerCallMs });
  } catch (err) {
    await disconnect();
    throw err;
  }

  const deps: PipelineDeps = {
    db,
    pub,
    sub,
    docker,
    provisioner,
    instance,
    prepareImages: opts.prepareImages ?? ensureImages,
    log,
    timeouts,
  };
  const jobs = new Map<string, JobDefinition>([runJob(deps, queue)].map((j) => [j.name, j]));
  const shutdown = new AbortController();
  const bull = workerConnection(env.REDIS_URL);
  bull.on("error", (err) => log.warn(`redis worker: ${errorMessage(err)}`));
  const worker = new Worker(
    RUN_QUEUE,
    async (job) => {
      const def = jobs.get(job.name);
      if (!def) throw new Error(`unknown job ${job.name}`);
      const payload = def.payload.parse(job.data);
      current = job.id;
      try {
        await def.handler(payload, { job, shutdown: shutdown.signal });
      } finally {
        current = undefined;
      }
    },
    { connection: bull, concurrency: 1 },
  );
  worker.on("error", (err) => log.error("queue error", { error: errorMessage(err) }));
  worker.on("failed", (job, err) => log.warn("job failed", { jobId: job?.id, error: errorMessage(err) }));
  // Connected before the handle is returned: a worker closed right after it started (a test's) must
  // not leave its connection's pending commands to reject after the close.
  await worker.waitUntilReady();

  const sweeper = setInterval(() => {
    sweep({ provisioner, db, instance, current: () => current, log }).catch((err) =>
      log.warn("sweep failed", { error: errorMessage(err) }),
    );
    void sweepEngines({ db, docker, instance, current: () => current, log, callMs: timeouts.dockerCallMs });
  }, opts.sweepIntervalMs ?? 60_000);
  log.info("worker started", { queue: RUN_QUEUE, instance });

  let closing: Promise<void> | undefined;
  const handle: WorkerHandle = {
    close: () =>
      (closing ??= (async () => {
        clearInterval(sweeper);
        // The run in progress is torn down and marked interrupted rather than awaited to its end.
        shutdown.abort();
        await worker.close();
        bull.disconnect();
        await disconnect();
        log.info("worker stopped");
      })()),
  };
  // Losing the lock (its connection dropped) stops the worker and exits non-zero.
  stopWhenLost(lock, log, () => handle.close());
  return handle;
}

async function reach(what: string, check: () => Promise<unknown>): Promise<void> {
  try {
    await check();
  } catch (err) {
    // Prisma puts the driver's message on the last line of a long one.
    const message = errorMessage(err).trim().split("\n").filter(Boolean).at(-1);
    throw new Error(`cannot reach ${what}: ${message}`);
  }
}

/** Runs left `running` by a worker that died: their samples stay, their containers get swept. */
async function markInterrupted(db: Db, pub: Redis, queue: Queue<RunJobData>, log: Logger): Promise<void> {
  const stale = await db.run.findMany({ where: { status: "running" }, select: { id: true, step: true } });
  for (const run of stale) {
    const detail = `the worker stopped during ${run.step}`;
    const error = `interrupted: ${detail} (killed or crashed); the samples recorded so far are kept`;
    await db.run.update({ where: { id: run.id }, data: { status: "interrupted", stepDetail: detail, error, finishedAt: new Date() } });
    await db.runEvent.create({ data: { runId: run.id, step: run.step, level: "warn", message: `interrupted: ${detail}` } });
    await pub.publish(
      runChannel(run.id),
      encodeChannelMessage({ type: "status", status: "interrupted", step: run.step, stepDetail: detail, error }),
    );
    log.warn("marked interrupted", { runId: run.id, step: run.step });
    if (await deleteIfAsked(db, run.id, log)) continue;
    await retryIfWanted(db, queue, run.id, log);
  }
}
