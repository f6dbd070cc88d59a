import { z } from "zod";
import { ZSample } from "@scalelab/scenarios/contract";
import { ZRunView } from "./types";

const between = { error: "ids must name between 2 and 8 runs" };

/**
 * A run id of `ids`, after splitting at commas. The pattern (true of every id once split and
 * trimmed) is what the OpenAPI document says of one value: no comma, since a comma separates
 * ids, and not blank.
 */
const ZComparedId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^,]*[^,\s\ufeff][^,]*$/, { error: "an id of ids must not be blank" });

/** `ids` as an array, or in a query string as `?ids=a,b` or `?ids=a&ids=b`. */
export const ZCompareInput = z.object({
  ids: z.preprocess(
    (v) => (typeof v === "string" ? v.split(",") : Array.isArray(v) ? v.flatMap((x) => (typeof x === "string" ? x.split(",") : [x])) : v),
    z.array(ZComparedId).min(2, between).max(8, between),
  ),
});

export const ZCompareResult = z.object({
  runs: z.array(ZRunView),
  figures: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      unit: z.enum(["", "req/s", "ms", "%", "/s", "B/s", "ms/s"]),
      better: z.enum(["higher", "lower", "none"]),
      cells: z.array(
        z.object({
          runId: z.string(),
          value: z.number().nullable(),
          ratio: z.number().nullable().describe("value / the first run's value"),
          verdict: z.enum(["baseline", "better", "worse", "same", "unknown", "neutral"]),
        }),
      ),
    }),
  ),
  setup: z.array(z.object({ key: z.string(), label: z.string(), values: z.array(z.string()), differs: z.boolean() })),
  samples: z
    .array(z.object({ runId: z.string(), samples: z.array(ZSample) }))
    .describe(
      "each run's seconds; a run longer than 600 s as at most 600 points, the lowest and highest of each bucket (latency: the highest)",
    ),
});
