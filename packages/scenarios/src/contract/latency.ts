import { z } from "zod";

/** Latency figures in ms (whole-run or one second). Its own module so that parsers need not load the run schemas. */
export const ZLatency = z.object({
  avg: z.number(),
  p50: z.number(),
  p90: z.number(),
  p95: z.number(),
  p99: z.number(),
  max: z.number(),
});
export type TLatency = z.infer<typeof ZLatency>;
