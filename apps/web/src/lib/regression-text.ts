import { REGRESSION_VERDICT_TEXT, type TRegressionVerdict } from "@scalelab/scenarios/analysis";

/**
 * The words of the regression card. A run or experiment still in progress has nothing to compare
 * yet: that is waiting, not "cannot tell".
 */
export type RegressionWords = { short: string; sentence: string; badge: string };

const BADGE: Record<TRegressionVerdict, string> = { passed: "badge-succeeded", regressed: "badge-failed", cannot_tell: "badge-cancelled" };
const SHORT: Record<TRegressionVerdict, string> = { passed: "no regression", regressed: "regression", cannot_tell: "cannot tell" };

export function regressionWords(verdict: TRegressionVerdict, kind: "run" | "experiment", ended: boolean): RegressionWords {
  if (!ended && verdict === "cannot_tell") {
    return {
      short: "waiting",
      sentence: `Waiting for the ${kind} to end: it is compared with the baseline once it has`,
      badge: "badge-queued",
    };
  }
  return { short: SHORT[verdict], sentence: REGRESSION_VERDICT_TEXT[verdict], badge: BADGE[verdict] };
}

/** The card's heading: `Compared with the baseline of “checkout”`. */
export const regressionHeading = (name: string) => `Compared with the baseline of \u201c${name}\u201d`;
