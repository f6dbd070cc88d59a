export { RUN_QUEUE, RUN_JOB, HOST_KEY, runChannel, cancelChannel, type RunJobData } from "@scalelab/scenarios/channels";
