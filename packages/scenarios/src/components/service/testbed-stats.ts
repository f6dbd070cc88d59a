import { z } from "zod";

/**
 * The testbed's `GET /stats` body: cumulative counters and current gauges of one container.
 * Read leniently (missing counters are 0) so an older or partial answer is still usable.
 */
const counter = z.number().nonnegative().catch(0).default(0);
export const ZTestbedStats = z.object({
  role: z.string().catch("service").default("service"),
  requests: counter,
  pool: z.object({ size: counter, busy: counter, queued: counter, rejected: counter }).prefault({}),
  log: z.object({ lines: counter, flushes: counter, dropped: counter }).prefault({}),
  downstream: z.object({ mode: z.string().catch("none").default("none"), sent: counter, errors: counter }).prefault({}),
  consumed: counter,
  consumeErrors: counter,
});
export type TTestbedStats = z.infer<typeof ZTestbedStats>;
