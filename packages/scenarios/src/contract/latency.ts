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

/**
 * A mergeable latency histogram (../loadgen/histogram.ts): the non-empty slots of sl-wrk's
 * log-linear scheme over microseconds, slot index → count. Two histograms merge by adding counts.
 */
export const ZLatencyHistogram = z.record(z.string().regex(/^(0|[1-9][0-9]{0,4})$/), z.number().int().nonnegative());
export type TLatencyHistogram = z.infer<typeof ZLatencyHistogram>;
