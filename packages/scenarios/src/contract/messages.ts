import { ZSample } from "./results";
import { ZRunStatus } from "./status";
import { z } from "zod";
import { ZFaultActual } from "./faults";

/**
 * The live messages the worker publishes on `scalelab:run:<id>` (see channels.ts): one schema,
 * validated by the publisher before it sends and by every reader when it receives.
 */
export const ZContainerStat = z.object({
  container: z.string(),
  role: z.string(),
  cpuPct: z.number(),
  memBytes: z.number(),
  throttledPeriods: z.number(),
  /** Milliseconds throttled in the second (stats.ts containerUsage); absent in rows recorded before it was. */
  throttledMs: z.number().optional(),
  /** Network bytes per second received and sent; absent without a network or in rows recorded before it was. */
  netRxBps: z.number().optional(),
  netTxBps: z.number().optional(),
});
export type TContainerStat = z.infer<typeof ZContainerStat>;

/** One container in one second of the load (t as in the samples), as `GET /runs/{id}/containers` lists them. */
export const ZContainerSample = z.object({ t: z.number().int(), ...ZContainerStat.shape });
export type TContainerSample = z.infer<typeof ZContainerSample>;

/** Per-second figures of the topology's components (pool, broker, downstream; see figures.ts). */
export const ZFigureSample = z.object({ t: z.number().int(), figures: z.record(z.string(), z.number()) });
export type TFigureSample = z.infer<typeof ZFigureSample>;

export const ZChannelMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("sample"), sample: ZSample }),
  z.object({
    type: z.literal("status"),
    status: ZRunStatus,
    step: z.string(),
    stepDetail: z.string().nullish(),
    error: z.string().nullish(),
  }),
  z.object({ type: z.literal("event"), level: z.enum(["info", "warn", "error"]), step: z.string(), message: z.string() }),
  z.object({ type: z.literal("containers"), t: z.number().int(), containers: z.array(ZContainerStat) }),
  z.object({ type: z.literal("figures"), ...ZFigureSample.shape }),
  /** Fault `index` of the run's timeline was applied (or failed) at its actual time. */
  z.object({ type: z.literal("fault"), index: z.number().int(), actual: ZFaultActual }),
]);
export type TChannelMessage = z.infer<typeof ZChannelMessage>;

/** The wire form of a message; throws when it does not match the schema (a publisher's bug). */
export function encodeChannelMessage(message: TChannelMessage): string {
  return JSON.stringify(ZChannelMessage.parse(message));
}

/** A channel message, or null for anything that is not one (it is skipped, never fatal). */
export function parseChannelMessage(raw: string): TChannelMessage | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const r = ZChannelMessage.safeParse(json);
  return r.success ? r.data : null;
}
