import { REGRESSION_VERDICTS } from "@scalelab/scenarios/analysis";
import { LIMITS, ZRunStatus } from "@scalelab/scenarios/contract";
import { ZExperimentStatus } from "@scalelab/scenarios/experiments";
import { z } from "zod";
import { ZLimit } from "../runs/paging";

/** Schemas of the baselines and history API: the REST document is generated from these. */

export const BASELINE_KINDS = ["run", "experiment"] as const;
export type TBaselineKind = (typeof BASELINE_KINDS)[number];

export const ZBaselineMark = z.object({
  kind: z.enum(BASELINE_KINDS),
  id: z.string(),
  name: z.string(),
  baseline: z.boolean().describe("whether it is the baseline of its name now"),
  /** Marking: the run or experiment that was the baseline of the name before, if another. Unmarking: null. */
  replaced: z.string().nullable(),
});
export type TBaselineMark = z.infer<typeof ZBaselineMark>;

const nameError = `name must be a run's or an experiment's name: 1 to ${LIMITS.name.max} characters`;
export const ZHistoryInput = z.object({
  name: z
    .string({ error: nameError })
    .min(1, { error: nameError })
    .max(LIMITS.name.max, { error: nameError })
    .meta({ description: "the name of the runs or experiments" }),
  kind: z
    .enum(BASELINE_KINDS, { error: `kind must be one of: ${BASELINE_KINDS.join(", ")}` })
    .default("run")
    .meta({ description: "stand-alone runs (the default) or experiments" }),
  limit: ZLimit.meta({ description: "at most this many points, the latest" }),
});
export type THistoryInput = z.output<typeof ZHistoryInput>;

const ZCi = z.object({ low: z.number(), high: z.number() }).nullable().describe("95 % confidence interval of the mean; null below 2 runs");

export const ZHistoryPoint = z.object({
  id: z.string(),
  createdAt: z.string().describe("ISO 8601"),
  status: z.union([ZRunStatus, ZExperimentStatus]),
  baseline: z.boolean().describe("it is the baseline of the name now"),
  /** The baseline it was compared with (recorded when it was created); null when the name had none then. */
  baselineId: z.string().nullable(),
  verdict: z.enum(REGRESSION_VERDICTS).nullable().describe("its regression check's verdict; null without a baseline"),
  /** Runs: the run's req/s and p95 (ms); null for experiments and runs without figures. */
  rps: z.number().nullable(),
  p95: z.number().nullable(),
  /** Experiments: each variant's mean req/s and p95 over its succeeded runs, with their 95 % CIs; null for runs. */
  variants: z
    .array(
      z.object({
        variant: z.string(),
        runs: z.number().int(),
        rps: z.number().nullable(),
        p95: z.number().nullable(),
        rpsCi: ZCi,
        p95Ci: ZCi,
      }),
    )
    .nullable(),
});
export type THistoryPoint = z.infer<typeof ZHistoryPoint>;

export const ZHistory = z.object({
  name: z.string(),
  kind: z.enum(BASELINE_KINDS),
  baselineId: z.string().nullable().describe("the baseline of the name now; null when it has none"),
  /** Oldest first: the latest `limit` runs or experiments of the name (an experiment's runs are not stand-alone runs). */
  points: z.array(ZHistoryPoint),
});
export type THistory = z.infer<typeof ZHistory>;
