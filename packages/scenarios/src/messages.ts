import { z } from "zod";
import { ZRunStatus, ZSample } from "./schemas";

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
});
export type TContainerStat = z.infer<typeof ZContainerStat>;

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
