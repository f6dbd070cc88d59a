import { Job } from "bullmq";
import { z } from "zod";

export type JobContext = { job: Job; shutdown: AbortSignal };

/** A job: its name in the queue, the schema its payload is parsed with before the handler runs, the handler. */
export type JobDefinition<S extends z.ZodType = z.ZodType> = {
  name: string;
  payload: S;
  handler: (payload: z.infer<S>, ctx: JobContext) => Promise<void>;
};

export const defineJob = <S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> => def;
