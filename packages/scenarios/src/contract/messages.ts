import { ZSample } from "./results";
import { ZRunStatus } from "./status";
import { z } from "zod";
import { RUN_ID_PATTERN } from "../names";
import { ZFaultActual } from "./faults";

/**
 * The message catalog of the web and the worker: the run queue's job, the cancel message and the
 * live messages of a run. Each has one schema, validated by the publisher before it sends and by
 * every reader when it receives (a message that does not match is skipped, never fatal).
 */

/** The queue of runs (BullMQ), its one job and the Redis key where the worker publishes the host's facts. */
export const RUN_QUEUE = "scalelab-runs";
export const RUN_JOB = "run";
export const HOST_KEY = "scalelab:host";
/** A run's live messages, and the web's request to cancel it. */
export const runChannel = (runId: string) => `scalelab:run:${runId}`;
export const cancelChannel = (runId: string) => `scalelab:run:${runId}:cancel`;

/** The run job's payload; the job id is the run id, so a re-delivered job is the same run. */
export const ZRunJob = z.strictObject({ runId: z.string().regex(RUN_ID_PATTERN) });
export type RunJobData = z.infer<typeof ZRunJob>;

/** The job that runs `runId`, validated: what the web adds to RUN_QUEUE. */
export function runJob(runId: string) {
  return {
    name: RUN_JOB,
    data: ZRunJob.parse({ runId }),
    opts: { jobId: runId, removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } },
  } as const;
}

/** The web's request to stop a run, on the run's cancel channel. */
export const ZCancelMessage = z.strictObject({ type: z.literal("cancel"), runId: z.string().regex(RUN_ID_PATTERN) });
export type TCancelMessage = z.infer<typeof ZCancelMessage>;

export const encodeCancelMessage = (runId: string): string => JSON.stringify(ZCancelMessage.parse({ type: "cancel", runId }));

/** The cancel message on `raw`, or null for anything that is not one. */
export const parseCancelMessage = (raw: string): TCancelMessage | null => parseJson(ZCancelMessage, raw);

function parseJson<T>(schema: z.ZodType<T>, raw: string): T | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const r = schema.safeParse(json);
  return r.success ? r.data : null;
}
export const ZContainerStat = z.object({
  container: z.string(),
  role: z.string(),
  cpuPct: z.number(),
  memBytes: z.number(),
  throttledPeriods: z.number(),
  /** CFS periods that elapsed in the second (throttledPeriods is never more); absent in rows recorded before it was. */
  periods: z.number().optional(),
  /** Milliseconds throttled in the second (stats.ts containerUsage); absent in rows recorded before it was. */
  throttledMs: z.number().optional(),
  /** Network bytes per second received and sent; absent without a network or in rows recorded before it was. */
  netRxBps: z.number().optional(),
  netTxBps: z.number().optional(),
  /** The engine's node it ran on; absent on the lab's own engine (local). */
  node: z.string().optional(),
});
export type TContainerStat = z.infer<typeof ZContainerStat>;

/** One container in one second of the load (t as in the samples), as `GET /runs/{id}/containers` lists them. */
export const ZContainerSample = z.object({ t: z.number().int(), ...ZContainerStat.shape });
export type TContainerSample = z.infer<typeof ZContainerSample>;

/** Per-second figures of the topology's components (pool, broker, downstream; see figures.ts). */
export const ZFigureSample = z.object({ t: z.number().int(), figures: z.record(z.string(), z.number()) });
export type TFigureSample = z.infer<typeof ZFigureSample>;

/**
 * One second of the load on the host, in % of one core (100 = one core): the host's busy CPU, the
 * run's containers', the worker's own and what else used the host (null: a container's reading of
 * the second was missing). ../analysis/host-noise.ts.
 */
export const ZHostSample = z.object({
  t: z.number().int(),
  cores: z.number().int(),
  hostCpuPct: z.number(),
  runCpuPct: z.number(),
  workerCpuPct: z.number(),
  otherCpuPct: z.number().nullable(),
  /** The engine's node it was read on ("local" on the lab's own engine). */
  node: z.string().optional(),
});
export type THostSample = z.infer<typeof ZHostSample>;

export const ZChannelMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("sample"), sample: ZSample }),
  z.object({
    type: z.literal("status"),
    status: ZRunStatus,
    step: z.string(),
    stepDetail: z.string().nullish(),
    error: z.string().nullish(),
  }),
  /** A timeline event as stored: `id` is its row's (decimal), so a reader that also read the rows shows it once. */
  z.object({
    type: z.literal("event"),
    id: z.string().regex(/^\d+$/),
    level: z.enum(["info", "warn", "error"]),
    step: z.string(),
    message: z.string(),
  }),
  z.object({ type: z.literal("containers"), t: z.number().int(), containers: z.array(ZContainerStat) }),
  z.object({ type: z.literal("figures"), ...ZFigureSample.shape }),
  /** Fault `index` of the run's timeline was applied (or failed) at its actual time. */
  z.object({ type: z.literal("fault"), index: z.number().int(), actual: ZFaultActual }),
]);
export type TChannelMessage = z.infer<typeof ZChannelMessage>;

/** The wire form of a message; throws when it does not match the schema (a publisher's bug). */
export function encodeChannelMessage(message: TChannelMessage): string {
  return JSON.stringify(ZChannelMessage.parse(message));
}

/** A channel message, or null for anything that is not one (it is skipped, never fatal). */
export function parseChannelMessage(raw: string): TChannelMessage | null {
  return parseJson(ZChannelMessage, raw);
}
