import {
  EXPERIMENT_LIMITS,
  applyPatch,
  forbiddenKey,
  jsonObject,
  expandExperiment,
  estimateSeconds,
  ZExperimentCreate,
} from "@scalelab/scenarios/experiments";
import { METRIC_KEYS } from "@scalelab/scenarios/analysis";
import { PRESETS, presetByName } from "@scalelab/scenarios/experiments";
import { int, text } from "@scalelab/scenarios/contract";
import { z } from "zod";
import { AppError, invalidInput } from "../errors";
import type { Deps } from "../runtime";
import { createExperiment } from "./service";
import type { TExperimentRef } from "./types";

export const ZPresetReference = z.object({
  variant: z.string(),
  metric: z.enum(METRIC_KEYS),
  value: z.number(),
  note: z.string().optional(),
});

export const ZPresetView = z.object({
  name: z.string(),
  title: z.string(),
  shows: z.string().describe("what running it shows, in one line"),
  expected: z.string().describe("the shape expected"),
  scaled: z.string().describe("how the write-up's setup was scaled to this machine"),
  source: z.string(),
  reference: z.array(ZPresetReference).describe("the write-up's own figures, beside the variant they belong to"),
  experiment: ZExperimentCreate,
  runs: z.number().int(),
  estimatedSeconds: z.number().int(),
});
export type TPresetView = z.infer<typeof ZPresetView>;

const { repetitions, settleSeconds } = EXPERIMENT_LIMITS;

export const ZPresetRunInput = z.strictObject(
  {
    name: z.string().min(1).max(64),
    /** The experiment's name; by default the preset's, marked "(modified)" when a patch, repetitions or settle pause change it. */
    experimentName: text("experimentName", EXPERIMENT_LIMITS.name.max)
      .pipe(z.string().min(1, { error: "experimentName must not be empty" }))
      .optional(),
    /** Merged into the preset's base run definition (objects field by field, null removes a field). */
    patch: jsonObject("patch").optional(),
    repetitions: int("repetitions", repetitions).optional(),
    settleSeconds: int("settleSeconds", settleSeconds).optional(),
  },
  {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown field ${iss.keys.join(", ")}: a preset run takes experimentName, patch, repetitions and settleSeconds`
        : undefined,
  },
);

export async function listPresets(_deps: Deps) {
  return PRESETS.map((p) => {
    const experiment = ZExperimentCreate.parse(p.experiment);
    const out = expandExperiment(experiment);
    if (!out.ok) throw new Error(`preset ${p.name} is invalid: ${out.issues.map((i) => i.message).join("; ")}`);
    return {
      name: p.name,
      title: p.title,
      shows: p.shows,
      expected: p.expected,
      scaled: p.scaled,
      source: p.source,
      reference: p.reference,
      experiment,
      runs: out.runs,
      estimatedSeconds: estimateSeconds(out.variants, experiment.repetitions, experiment.settleSeconds),
    } satisfies TPresetView;
  });
}

export async function runPreset(deps: Deps, input: z.infer<typeof ZPresetRunInput>): Promise<TExperimentRef> {
  const preset = presetByName(input.name);
  if (!preset) throw new AppError("not_found", `preset ${input.name} not found: one of ${PRESETS.map((p) => p.name).join(", ")}`);
  // applyPatch would drop these keys and run the preset without them; /experiments refuses them.
  const bad = input.patch && forbiddenKey(input.patch, "patch");
  if (bad) throw invalidInput([{ path: bad, message: `${bad}: this key is not allowed` }]);
  const changed = input.patch !== undefined || input.repetitions !== undefined || input.settleSeconds !== undefined;
  const def = ZExperimentCreate.parse({
    ...preset.experiment,
    name: input.experimentName ?? (changed ? `${preset.experiment.name} (modified)` : preset.experiment.name),
    base: input.patch ? applyPatch(preset.experiment.base, input.patch) : preset.experiment.base,
    ...(input.repetitions !== undefined && { repetitions: input.repetitions }),
    ...(input.settleSeconds !== undefined && { settleSeconds: input.settleSeconds }),
  });
  return createExperiment(deps, def, { preset: preset.name });
}
