import { z } from "zod";
import { strict } from "./fields";

/**
 * How a run or an experiment is checked against the baseline of its name (../analysis/regression.ts):
 * worse than `worseBy` % (req/s lower, p95 higher) at p < `p` is a regression. Optional in a
 * definition; the defaults apply without it.
 */
export const REGRESSION_LIMITS = { worseBy: { min: 0, max: 1000, default: 10 }, p: { default: 0.05 } } as const;

const worseByError = `regression.worseBy must be a number between ${REGRESSION_LIMITS.worseBy.min} and ${REGRESSION_LIMITS.worseBy.max} (percent)`;
const pError = "regression.p must be a number above 0 and at most 1";

export const ZRegressionSettings = strict("regression", {
  /** Percent: 10 = a regression when more than 10 % worse. */
  worseBy: z
    .number({ error: worseByError })
    .min(REGRESSION_LIMITS.worseBy.min, { error: worseByError })
    .max(REGRESSION_LIMITS.worseBy.max, { error: worseByError })
    .default(REGRESSION_LIMITS.worseBy.default),
  /** The significance level of the change (with repetitions on both sides). */
  p: z.number({ error: pError }).gt(0, { error: pError }).max(1, { error: pError }).default(REGRESSION_LIMITS.p.default),
}).meta({
  description:
    "The check against the baseline of the name (PUT /runs/{id}/baseline, /experiments/{id}/baseline): a regression when req/s is lower or p95 higher by more than worseBy % at p < p",
  examples: [{ worseBy: 10, p: 0.05 }],
});
export type TRegressionSettings = z.infer<typeof ZRegressionSettings>;

export const DEFAULT_REGRESSION: TRegressionSettings = { worseBy: REGRESSION_LIMITS.worseBy.default, p: REGRESSION_LIMITS.p.default };
