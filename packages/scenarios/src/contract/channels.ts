/** Queue, key and channel names shared by apps/web and apps/worker (see docs/ARCHITECTURE.md). */
export const RUN_QUEUE = "scalelab-runs";
export const RUN_JOB = "run";
export const HOST_KEY = "scalelab:host";
export const runChannel = (runId: string) => `scalelab:run:${runId}`;
export const cancelChannel = (runId: string) => `scalelab:run:${runId}:cancel`;
export type RunJobData = { runId: string };
