import { ZRunStatus, ZSample } from "@scalelab/scenarios/schemas";
import { z } from "zod";
import { ZContainerStat } from "./types";

/** Messages the worker publishes on `scalelab:run:<id>` (docs/ARCHITECTURE.md). */
export const ZChannelMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("sample"), sample: ZSample }),
  z.object({
    type: z.literal("status"),
    status: ZRunStatus,
    step: z.string(),
    stepDetail: z.string().nullish(),
    error: z.string().nullish(),
  }),
  z.object({ type: z.literal("event"), level: z.string(), step: z.string(), message: z.string() }),
  z.object({ type: z.literal("containers"), t: z.number().int(), containers: z.array(ZContainerStat) }),
]);
export type TChannelMessage = z.infer<typeof ZChannelMessage>;

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
