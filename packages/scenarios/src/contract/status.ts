import { z } from "zod";

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled", "interrupted"] as const;
export const TERMINAL_STATUSES = ["succeeded", "failed", "cancelled", "interrupted"] as const;
export const ZRunStatus = z.enum(RUN_STATUSES);
export type TRunStatus = z.infer<typeof ZRunStatus>;
export const isTerminal = (s: TRunStatus): boolean => (TERMINAL_STATUSES as readonly string[]).includes(s);

/** The pipeline's steps, in order. A run's `step` is the one it is in (or ended in). */
export const RUN_STEPS = [
  "queued",
  "preparing_images",
  "provisioning",
  "waiting_healthy",
  "warmup",
  "running",
  "collecting",
  "tearing_down",
  "done",
] as const;
export const ZRunStep = z.enum(RUN_STEPS);
export type TRunStep = z.infer<typeof ZRunStep>;
