// The contract's thresholds (issue 17): the text form `p95<250` of --threshold.
export { parseThreshold } from "@scalelab/scenarios/contract";
