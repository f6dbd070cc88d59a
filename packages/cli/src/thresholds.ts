// The seam to the contract's thresholds (issue 17): once the thresholds branch is merged, this line
// becomes `export { parseThreshold } from "@scalelab/scenarios/contract";` and ./thresholds-local.ts goes.
export { parseThreshold } from "./thresholds-local";
