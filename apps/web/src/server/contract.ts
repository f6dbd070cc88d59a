/** Names shared with apps/worker; docs/ARCHITECTURE.md is their source of truth. */
export const RUN_QUEUE = "scalelab-runs";
export const RUN_JOB = "run";
export const HOST_KEY = "scalelab:host";
export const runChannel = (runId: string) => `scalelab:run:${runId}`;
export const cancelChannel = (runId: string) => `scalelab:run:${runId}:cancel`;
export type RunJobData = { runId: string };
