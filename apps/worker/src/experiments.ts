import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Db, Prisma } from "@scalelab/db";
import { RunJobData, runJob } from "@scalelab/scenarios/messages";
import { wantsRetry } from "@scalelab/scenarios/experiments";
import { TRunStatus } from "@scalelab/scenarios/contract";
import { Queue } from "bullmq";
import { Logger } from "./log";

/**
 * What the worker does for a run that belongs to an experiment: a settle pause before it when
 * another run of the experiment came before (so one run's teardown and the machine's caches do not
 * spill into the next measurement), and one retry of a run that failed or was interrupted.
 */

export async function settleBeforeRun(db: Db, runId: string, signal: AbortSignal, log: Logger): Promise<void> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { experimentId: true, status: true } });
  if (!run?.experimentId || run.status !== "queued") return;
  const experiment = await db.experiment.findUnique({
    where: { id: run.experimentId },
    select: { settleSeconds: true, cancelRequested: true },
  });
  if (!experiment || experiment.cancelRequested || experiment.settleSeconds === 0) return;
  const before = await db.run.count({ where: { experimentId: run.experimentId, finishedAt: { not: null } } });
  if (before === 0) return;
  log.info("settling before the next run of the experiment", { runId, seconds: experiment.settleSeconds });
  await db.run.updateMany({
    where: { id: runId, status: "queued" },
    data: { stepDetail: `settling ${experiment.settleSeconds} s after the experiment's previous run` },
  });
  await sleep(experiment.settleSeconds * 1000, undefined, { signal }).catch(() => {});
}

/**
 * Queues the one retry of an experiment's run that failed or was interrupted (not of a retry, not
 * once the experiment is being cancelled). A re-delivered job finds the retry already made.
 */
export async function retryIfWanted(db: Db, queue: Queue<RunJobData>, runId: string, log: Logger): Promise<string | null> {
  const run = await db.run.findUnique({ where: { id: runId } });
  if (!run?.experimentId || run.variant === null || run.repetition === null) return null;
  const experiment = await db.experiment.findUnique({ where: { id: run.experimentId }, select: { cancelRequested: true } });
  if (!experiment || !wantsRetry({ status: run.status as TRunStatus, attempt: run.attempt }, experiment.cancelRequested)) return null;
  const slot = { experimentId: run.experimentId, variant: run.variant, repetition: run.repetition };
  if ((await db.run.count({ where: { ...slot, attempt: { gt: run.attempt } } })) > 0) return null;
  const id = randomUUID();
  const faults = (run.faults as { actual?: unknown }[]).map(({ actual: _, ...f }) => f);
  await db.run.create({
    data: {
      id,
      name: run.name,
      engine: run.engine,
      topology: run.topology as Prisma.InputJsonValue,
      workload: run.workload as Prisma.InputJsonValue,
      faults: faults as Prisma.InputJsonValue,
      thresholds: run.thresholds as Prisma.InputJsonValue,
      ...slot,
      attempt: run.attempt + 1,
    },
  });
  try {
    const job = runJob(id);
    await queue.add(job.name, job.data, job.opts);
  } catch (err) {
    await db.run.delete({ where: { id } });
    throw err;
  }
  await db.runEvent.create({ data: { runId, step: run.step, level: "warn", message: `${run.status}: retried once as run ${id}` } });
  log.warn("experiment run retried", { runId, retry: id, status: run.status });
  return id;
}
