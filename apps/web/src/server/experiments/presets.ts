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
import { int, LOCAL_ENGINE, text, ZExperimentThresholds } from "@scalelab/scenarios/contract";
import { nodeTakesContainers } from "@scalelab/scenarios/plan";
import { z } from "zod";
import { AppError, invalidInput } from "../errors";
import type { Deps } from "../runtime";
import { engineNodes } from "../engines/service";
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
  needs: z
    .string()
    .optional()
    .describe("a preset for the user's own service: the fields the run's patch must give (its runs and estimate assume they are given)"),
  engine: z
    .object({ name: z.string(), nodes: z.number().int(), setup: z.string() })
    .optional()
    .describe("a preset for a Swarm engine: the engine its base names, the active nodes it needs at least, and how to get them"),
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
    /** The values of the preset's sweep (a preset with one sweep axis), e.g. replicas [1, 2, 3, 4]. */
    values: z
      .array(z.number({ error: "values must be numbers" }), { error: "values must be an array of numbers" })
      .min(1, { error: `values must have between 1 and ${EXPERIMENT_LIMITS.values.max} entries` })
      .max(EXPERIMENT_LIMITS.values.max, { error: `values must have between 1 and ${EXPERIMENT_LIMITS.values.max} entries` })
      .optional(),
    /** The experiment's thresholds: per-run ({metric, op, value}) and comparison ({metric, compare: "baseline", worseBy, p}); none by default. */
    thresholds: ZExperimentThresholds.optional(),
  },
  {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown field ${iss.keys.join(", ")}: a preset run takes experimentName, patch, repetitions, settleSeconds, values and thresholds`
        : undefined,
  },
);

export async function listPresets(_deps: Deps) {
  return PRESETS.map((p) => {
    const experiment = ZExperimentCreate.parse(p.experiment);
    // A preset for the user's service is counted and estimated with its example completing the base.
    const out = expandExperiment(p.template ? { ...experiment, base: applyPatch(experiment.base, p.template.example) } : experiment);
    if (!out.ok) throw new Error(`preset ${p.name} is invalid: ${out.issues.map((i) => i.message).join("; ")}`);
    return {
      name: p.name,
      title: p.title,
      shows: p.shows,
      expected: p.expected,
      scaled: p.scaled,
      source: p.source,
      reference: p.reference,
      ...(p.template && { needs: p.template.needs }),
      ...(p.engine && { engine: p.engine }),
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
  const sweep = preset.experiment.sweep;
  if (input.values !== undefined && sweep?.length !== 1) {
    throw invalidInput([
      { path: "values", message: `values applies to a preset with one sweep axis; ${preset.name} has ${sweep?.length ?? 0}` },
    ]);
  }
  const changed =
    !preset.template &&
    (input.patch !== undefined || input.repetitions !== undefined || input.settleSeconds !== undefined || input.values !== undefined);
  const def = ZExperimentCreate.parse({
    ...preset.experiment,
    name: input.experimentName ?? (changed ? `${preset.experiment.name} (modified)` : preset.experiment.name),
    base: input.patch ? applyPatch(preset.experiment.base, input.patch) : preset.experiment.base,
    ...(input.repetitions !== undefined && { repetitions: input.repetitions }),
    ...(input.settleSeconds !== undefined && { settleSeconds: input.settleSeconds }),
    ...(input.values !== undefined && sweep && { sweep: [{ ...sweep[0]!, values: input.values }] }),
    ...(input.thresholds !== undefined && { thresholds: input.thresholds }),
  });
  // A base engine that is not a name is refused by the experiment's own validation, naming it.
  const engine = def.base.engine === undefined ? LOCAL_ENGINE : def.base.engine;
  if (preset.engine && typeof engine === "string") await requireNodes(deps, preset.name, preset.engine, engine);
  return createExperiment(deps, def, { preset: preset.name });
}

/** A Swarm preset's engine (as patched) must have the active nodes the preset compares across. */
async function requireNodes(deps: Deps, preset: string, need: { nodes: number; setup: string }, engine: string) {
  // The lab's own engine is one node.
  const active = (await engineNodes(deps, engine))?.filter(nodeTakesContainers).length ?? 1;
  if (active >= need.nodes) return;
  throw new AppError("unprocessable", `preset ${preset} needs ${need.nodes} nodes`, [
    {
      path: "engine",
      message: `engine ${engine} has ${active} active node(s); preset ${preset} needs at least ${need.nodes}: ${need.setup}, or a cluster of your own (docs/DISTRIBUTED.md) given as {"engine": "<name>"} in the patch`,
    },
  ]);
}
