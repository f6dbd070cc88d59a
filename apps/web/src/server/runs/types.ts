import { RUN_STEPS, ZHostFacts, ZRunStatus, ZRunSummary, ZTopology, ZWorkload } from "@scalelab/scenarios/contract";
import { ZFaultRecord, ZThreshold } from "@scalelab/scenarios/contract";
import { DOWNSAMPLE_POINTS, ZFinding, ZRegression } from "@scalelab/scenarios/analysis";
import { ZContainerStat, type TContainerStat } from "@scalelab/scenarios/messages";
import { z } from "zod";

/** Output schemas of the runs API: the REST document is generated from these. */

const timestamp = z.string().describe("ISO 8601");

export const ZRunView = z.object({
  id: z.string(),
  name: z.string().nullable(),
  /** The engine it runs on: "local" (the lab's own) or a Swarm cluster's name (GET /engines). */
  engine: z.string(),
  status: ZRunStatus,
  step: z.string().describe(`one of: ${RUN_STEPS.join(", ")}`),
  stepDetail: z.string().nullable(),
  error: z.string().nullable(),
  cancelRequested: z.boolean(),
  /** Its delete was asked while it was queued or running: the worker deletes it after its teardown. */
  deleteRequested: z.boolean(),
  /** The experiment the run is part of, with its repetition (0-based) and attempt (2 = a retry); null for a single run. */
  experiment: z.object({ id: z.string(), repetition: z.number().int(), attempt: z.number().int() }).nullable(),
  topology: ZTopology,
  workload: ZWorkload,
  /** The fault timeline, each fault with its actual time once applied. */
  faults: z.array(ZFaultRecord),
  /** Its thresholds as defined; their results are in summary.thresholds once it succeeded. */
  thresholds: z.array(ZThreshold),
  host: ZHostFacts.nullable(),
  summary: ZRunSummary.nullable(),
  /** What the run's figures say about why it came out so (scenarios findings.ts); empty until it has a summary. */
  findings: z.array(ZFinding),
  /** Its check against the baseline of its name recorded when it was created (PUT /runs/{id}/baseline); null when the name had none. */
  regression: ZRegression.nullable(),
  /** It is the baseline of its name now. */
  markedBaseline: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  startedAt: timestamp.nullable(),
  loadStartedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
});
export type TRunView = z.infer<typeof ZRunView>;

export const ZRunPage = z.object({
  items: z.array(ZRunView),
  nextCursor: z.string().nullable().describe("pass as ?cursor= for the next page; null on the last page"),
});
export type TRunPage = z.infer<typeof ZRunPage>;

export const ZDeleted = z.object({
  id: z.string(),
  deleted: z
    .boolean()
    .describe("true: gone with its samples, events and figures; false: being cancelled, deleted once its containers are removed"),
});
export type TDeleted = z.infer<typeof ZDeleted>;

export const ZRunRef = z.object({ id: z.string(), status: ZRunStatus });
export type TRunRef = z.infer<typeof ZRunRef>;

export const ZRunId = z.object({ id: z.string().min(1).max(64) });

const { min, max } = DOWNSAMPLE_POINTS;
const pointsRange = { error: `points must be a whole number between ${min} and ${max}` };

/**
 * `?points=`: at most this many points per series, min and max per bucket (packages/scenarios
 * analysis/downsample.ts). A JSON number, or decimal digits as a query string carries them.
 */
export const ZPoints = z
  .union([z.number(), z.string().regex(/^\d{1,9}$/, pointsRange)], { error: "points must be a number" })
  .pipe(z.coerce.number<string | number>().int(pointsRange).min(min, pointsRange).max(max, pointsRange))
  .meta({
    override: ({ jsonSchema }) => {
      delete jsonSchema.anyOf;
      Object.assign(jsonSchema, {
        type: "integer",
        minimum: min,
        maximum: max,
        description:
          "At most this many points per series: the series cut into buckets, each bucket's lowest and highest value kept (latency percentiles: the highest), so a 1-second peak stays visible; without it, every second",
      });
    },
  })
  .optional();

/** A run's series, downsampled when `points` is given. */
export const ZSeriesInput = ZRunId.extend({ points: ZPoints });
export type TSeriesInput = z.infer<typeof ZSeriesInput>;

export { ZContainerStat, type TContainerStat };

export const ZContainerSeconds = z.object({ t: z.number().int(), containers: z.array(ZContainerStat) });
export type TContainerSeconds = z.infer<typeof ZContainerSeconds>;

/** `id`: the row's, as the live `event` message carries it. */
export type TRunEventView = { id: string; at: string; level: string; step: string; message: string };
