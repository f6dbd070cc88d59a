import {
  ZExperimentComparison,
  ZExperimentThresholdsOutcome,
  ZRegression,
  ZUslResult,
  ZVariantStatistics,
} from "@scalelab/scenarios/analysis";
import { ZExperimentProgress, ZExperimentStatus } from "@scalelab/scenarios/experiments";
import { ZFinding } from "@scalelab/scenarios/analysis";
import { ZExperimentCreate } from "@scalelab/scenarios/experiments";
import { ZRunStatus, ZRunWarning } from "@scalelab/scenarios/contract";
import { z } from "zod";

/** Output schemas of the experiments API: the REST document is generated from these. */

const ZAxes = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

export const ZExperimentVariant = z.object({ name: z.string(), axes: ZAxes, patch: z.record(z.string(), z.unknown()) });

export const ZExperimentRef = z.object({
  id: z.string(),
  status: ZExperimentStatus,
  runs: z.number().int().describe("runs made (planned, then retries)"),
  estimatedSeconds: z.number().int().describe("expected duration when it was created (images built on first use not included)"),
});
export type TExperimentRef = z.infer<typeof ZExperimentRef>;

export const ZExperimentPreview = z.object({
  runs: z.number().int(),
  estimatedSeconds: z.number().int(),
  warnings: z
    .array(ZRunWarning)
    .describe(
      "what the lab accepts but says before the experiment starts, e.g. variants whose containers' CPU limits add up to more than the host's cores",
    ),
  baseline: z.string(),
  variants: z.array(ZExperimentVariant.extend({ index: z.number().int() })),
});
export type TExperimentPreview = z.infer<typeof ZExperimentPreview>;

export const ZExperimentView = z.object({
  id: z.string(),
  name: z.string(),
  status: ZExperimentStatus,
  preset: z.string().nullable(),
  createdAt: z.string(),
  repetitions: z.number().int(),
  settleSeconds: z.number().int(),
  estimatedSeconds: z.number().int(),
  cancelRequested: z.boolean(),
  definition: ZExperimentCreate,
  progress: ZExperimentProgress,
  baseline: z.string().nullable(),
  variants: z.array(
    ZExperimentVariant.extend({
      index: z.number().int(),
      runs: z.array(
        z.object({
          id: z.string(),
          repetition: z.number().int(),
          attempt: z.number().int(),
          status: ZRunStatus,
          step: z.string(),
          error: z.string().nullable(),
          rps: z.number().nullable(),
        }),
      ),
      statistics: ZVariantStatistics,
    }),
  ),
  comparisons: z.array(ZExperimentComparison),
  usl: ZUslResult.nullable(),
  uslNote: z.string().nullable(),
  /** The verdict of its thresholds: each variant's runs against the per-run ones, each variant against the baseline for the comparison ones; null without thresholds. */
  thresholds: ZExperimentThresholdsOutcome.nullable(),
  /** Its check against the baseline experiment of its name recorded when it was created (PUT /experiments/{id}/baseline); null when the name had none. */
  regression: ZRegression.nullable(),
  /** It is the baseline of its name now. */
  markedBaseline: z.boolean(),
  findings: z.array(ZFinding),
  /** For an experiment started from a preset: the write-up's figures beside its variants, and the shape expected. */
  reference: z
    .object({
      source: z.string(),
      expected: z.string(),
      figures: z.array(z.object({ variant: z.string(), metric: z.string(), value: z.number(), note: z.string().optional() })),
    })
    .nullable(),
});
export type TExperimentView = z.infer<typeof ZExperimentView>;

export const ZExperimentSummary = z.object({
  id: z.string(),
  name: z.string(),
  status: ZExperimentStatus,
  preset: z.string().nullable(),
  createdAt: z.string(),
  variants: z.number().int(),
  repetitions: z.number().int(),
  progress: ZExperimentProgress,
});
export type TExperimentSummary = z.infer<typeof ZExperimentSummary>;

export const ZExperimentPage = z.object({
  items: z.array(ZExperimentSummary),
  nextCursor: z.string().nullable().describe("pass as ?cursor= for the next page; null on the last page"),
});
export type TExperimentPage = z.infer<typeof ZExperimentPage>;

export const ZExperimentId = z.object({ id: z.string().min(1).max(64) });
