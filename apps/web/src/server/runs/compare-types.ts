import { z } from "zod";
import { GROUP_VERDICTS } from "@scalelab/scenarios/analysis";
import { ZSample } from "@scalelab/scenarios/contract";
import { ZRunView } from "./types";

export const MAX_COMPARED = 20;

const between = { error: `ids must name between 2 and ${MAX_COMPARED} runs` };

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
export const ZCompareInput = z
  .object({
    ids: z.preprocess(
      (v) => (typeof v === "string" ? v.split(",") : Array.isArray(v) ? v.flatMap((x) => (typeof x === "string" ? x.split(",") : [x])) : v),
      z.array(ZComparedId).min(2, between).max(MAX_COMPARED, between),
    ),
    /** The run the others are compared with: one of `ids`, the first by default. */
    baseline: z.string().trim().min(1, { error: "baseline must not be blank" }).max(64).optional(),
  })
  .superRefine((input, ctx) => {
    if (input.baseline && Array.isArray(input.ids) && !input.ids.includes(input.baseline)) {
      ctx.addIssue({ code: "custom", path: ["baseline"], message: `baseline must be one of ids; got ${input.baseline.slice(0, 64)}` });
    }
  });

const ZRatioCi = z.number().nullable();

const ZGroupComparison = z.object({
  group: z.string().describe("the side's id (A, B, …)"),
  n: z.number().int().describe("runs with a value on this side"),
  baselineN: z.number().int().describe("runs with a value on the baseline's side"),
  ratio: z.number().nullable().describe("this side / the baseline's side, of geometric means"),
  ciLow: ZRatioCi.describe("95 % confidence interval of the ratio (Welch's t on the logs); null below 2 runs on a side"),
  ciHigh: ZRatioCi,
  pValue: z.number().nullable(),
  verdict: z
    .enum(GROUP_VERDICTS)
    .describe(
      "better/worse: significant (p < 0.05); not_distinguishable: tested, not significant; cannot_tell: a side has one run, so a difference cannot be told from noise; unknown: no ratio",
    ),
  text: z.string(),
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
          ratio: z.number().nullable().describe("value / the baseline run's value"),
          verdict: z
            .enum(["baseline", "better", "worse", "same", "unknown", "neutral"])
            .describe("the direction of this run against the baseline run (2 % tolerance), not a statistical verdict: see verdicts"),
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
  /** The run the ratios and verdicts are to. */
  baseline: z.string(),
  /** The compared runs as sides: runs of one definition (topology, workload, faults) are one side with repetitions. */
  groups: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      runIds: z.array(z.string()),
      counted: z.array(z.string()).describe("the side's runs whose figures count: succeeded, with a summary"),
    }),
  ),
  /** Per scored figure, each side against the baseline run's side. */
  verdicts: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      unit: z.enum(["", "req/s", "ms", "%", "/s", "B/s", "ms/s"]),
      better: z.enum(["higher", "lower"]),
      comparisons: z.array(ZGroupComparison),
    }),
  ),
  /** The runs' findings side by side, one row per finding code; `cells` in the order of `runs`. */
  reasons: z.array(
    z.object({
      code: z.string(),
      cells: z.array(z.object({ level: z.enum(["info", "warn"]), message: z.string() }).nullable()),
      differs: z.boolean().describe("held by some sides and not by others"),
    }),
  ),
  /** Sides with fewer than 2 counted runs: their differences cannot be told from noise. */
  singleSides: z.array(z.string()),
  /** An experiment (POST /experiments) that runs every side's definition 3 times; null with one side. */
  repeat: z
    .object({
      name: z.string(),
      base: z.record(z.string(), z.unknown()),
      variants: z.array(z.object({ name: z.string(), patch: z.record(z.string(), z.unknown()) })),
      repetitions: z.number().int(),
      baseline: z.string(),
    })
    .nullable(),
});
