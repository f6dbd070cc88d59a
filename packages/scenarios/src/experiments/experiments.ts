import { explicitBalancer } from "../components/balancer/config";
import { z } from "zod";
import { int, strict, text } from "../contract/fields";
import { FieldIssue } from "../contract/host";
import { ZRunCreate, TRunCreate } from "../contract/run";
import { ZRegressionSettings } from "../contract/regression";
import {
  isComparisonThreshold,
  THRESHOLD_LIMITS,
  thresholdIssues,
  TComparisonThreshold,
  TThreshold,
  ZExperimentThresholds,
} from "../contract/thresholds";

/**
 * An experiment: a base run definition, variants (each a patch of the base) and/or sweep axes (a
 * field and its values; axes multiply into a grid), run `repetitions` times each, interleaved
 * (A, B, C, A, B, C, …) so that a slow drift of the machine does not land on one variant.
 */

/** Sweeps over these knobs are fitted with the USL: N is how many of something serve or load. */
export const SCALE_FIELDS = ["topology.service.replicas", "workload.vus", "workload.connections", "topology.service.threads"] as const;
/** The fewest distinct N that test a USL fit: 3 parameters leave nothing to check the curve against with fewer. */
export const USL_MIN_POINTS = 4;
/**
 * The fewest distinct N the USL is fitted to at all: 3, when they have repetitions (more
 * observations than parameters). Such a fit passes near the 3 means and is reported with a caveat
 * ("How does my service scale?" sweeps 1, 2 and 4 replicas).
 */
export const USL_FIT_MIN_N = 3;

export const EXPERIMENT_LIMITS = {
  runs: { max: 200 },
  repetitions: { min: 1, max: 20 },
  variants: { min: 1, max: 50 },
  axes: { min: 1, max: 3 },
  values: { min: 1, max: 20 },
  settleSeconds: { min: 0, max: 120 },
  name: { max: 120 },
  variantName: { max: 80 },
} as const;

/** What a run adds to its load's duration: images checked, containers started and healthy, warm-up, collecting, teardown. */
export const RUN_OVERHEAD_SECONDS = 15;

/** The fields a sweep may set: dotted paths of the run definition, letters only (no prototype tricks, no array indices). */
const FIELD_PATH = /^(topology|workload)(\.[A-Za-z][A-Za-z0-9]{0,40}){1,3}$/;
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** A JSON object whose fields are checked later, once merged into a whole run definition. */
export const jsonObject = (field: string) =>
  z
    .custom<Record<string, unknown>>((v) => isPlainObject(v), { error: `${field} must be an object` })
    .meta({ type: "object", additionalProperties: true });

const ZSweepValue = z.union([z.number(), z.boolean(), text("a sweep value", 100)], {
  error: "sweep values must be numbers, booleans or strings",
});

export const ZSweepAxis = strict("sweep[]", {
  field: z.string({ error: "sweep.field must be a string" }).regex(FIELD_PATH, {
    error: "sweep.field must be a dotted path of the run definition, e.g. topology.service.replicas or workload.vus",
  }),
  values: z
    .array(ZSweepValue, { error: "sweep.values must be an array" })
    .min(EXPERIMENT_LIMITS.values.min, { error: `sweep.values must have between 1 and ${EXPERIMENT_LIMITS.values.max} values` })
    .max(EXPERIMENT_LIMITS.values.max, { error: `sweep.values must have between 1 and ${EXPERIMENT_LIMITS.values.max} values` }),
});
export type TSweepAxis = z.infer<typeof ZSweepAxis>;

export const ZVariantDef = strict("variants[]", {
  name: text("variants[].name", EXPERIMENT_LIMITS.variantName.max).pipe(z.string().min(1, { error: "variants[].name must not be empty" })),
  patch: jsonObject("variants[].patch").default({}),
});
export type TVariantDef = z.infer<typeof ZVariantDef>;

const { repetitions, settleSeconds, variants, axes } = EXPERIMENT_LIMITS;

export const ZExperimentCreate = strict("", {
  name: text("name", EXPERIMENT_LIMITS.name.max).pipe(z.string().min(1, { error: "name must not be empty" })),
  /** A run definition as POST /runs takes it; each variant's is validated once patched. */
  base: jsonObject("base"),
  variants: z
    .array(ZVariantDef, { error: "variants must be an array" })
    .min(variants.min, { error: `variants must have between ${variants.min} and ${variants.max} entries` })
    .max(variants.max, { error: `variants must have between ${variants.min} and ${variants.max} entries` })
    .optional(),
  sweep: z
    .array(ZSweepAxis, { error: "sweep must be an array" })
    .min(axes.min, { error: `sweep must have between ${axes.min} and ${axes.max} axes` })
    .max(axes.max, { error: `sweep must have between ${axes.min} and ${axes.max} axes` })
    .optional(),
  repetitions: int("repetitions", repetitions).default(3),
  settleSeconds: int("settleSeconds", settleSeconds).default(5),
  /** The variant the others are compared with; the first by default. */
  baseline: text("baseline", EXPERIMENT_LIMITS.variantName.max).optional(),
  /**
   * Per-run thresholds ({metric, op, value}), added to every run's own (base.thresholds), and
   * comparison thresholds ({metric, compare: "baseline", worseBy, p}), evaluated with the statistics.
   */
  thresholds: ZExperimentThresholds.default([]),
  /** The check against the baseline experiment of its name (contract/regression.ts); the defaults without it. */
  regression: ZRegressionSettings.optional(),
}).superRefine((e, ctx) => {
  const names = new Set<string>();
  e.variants?.forEach((v, i) => {
    if (names.has(v.name))
      ctx.addIssue({ code: "custom", path: ["variants", i, "name"], message: `variants[${i}].name "${v.name}" is used twice` });
    names.add(v.name);
  });
  const fields = new Set<string>();
  e.sweep?.forEach((a, i) => {
    if (fields.has(a.field))
      ctx.addIssue({ code: "custom", path: ["sweep", i, "field"], message: `sweep[${i}].field ${a.field} is swept twice` });
    fields.add(a.field);
  });
});
export type TExperimentCreate = z.infer<typeof ZExperimentCreate>;
export type TExperimentCreateInput = z.input<typeof ZExperimentCreate>;

export type TExpandedVariant = {
  index: number;
  /** Its entry in the definition's variants (0 without variants). */
  source: number;
  name: string;
  /** The sweep's values of this variant, by field (empty without a sweep). */
  axes: Record<string, string | number | boolean>;
  /** The whole change to the base: the variant's patch with the sweep's values set into it. */
  patch: Record<string, unknown>;
  run: TRunCreate;
};

export type TExpansion = { ok: true; variants: TExpandedVariant[]; baseline: number; runs: number } | { ok: false; issues: FieldIssue[] };

/**
 * Merges a patch into a run definition: objects merge field by field, anything else (numbers,
 * strings, arrays such as `faults`) replaces, and `null` removes the field so its default applies
 * (e.g. `{"workload": {"vus": null, "arrivalRate": 8}}` turns a closed model into an open one).
 */
export function applyPatch(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (FORBIDDEN_KEYS.has(key)) continue;
    if (value === null) delete out[key];
    else if (isPlainObject(value) && isPlainObject(out[key])) out[key] = applyPatch(out[key], value);
    else out[key] = value;
  }
  return out;
}

/** `{a: {b: v}}` for "a.b". */
export function patchOf(field: string, value: unknown): Record<string, unknown> {
  return field
    .split(".")
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

/** The path below `at` of the first `__proto__`, `constructor` or `prototype` key in a patch, if any. */
export function forbiddenKey(value: unknown, at: string): string | undefined {
  if (Array.isArray(value)) return value.map((v, i) => forbiddenKey(v, `${at}.${i}`)).find(Boolean);
  if (!isPlainObject(value)) return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (FORBIDDEN_KEYS.has(k)) return `${at}.${k}`;
    const inner = forbiddenKey(v, `${at}.${k}`);
    if (inner) return inner;
  }
  return undefined;
}

const label = (field: string) => field.split(".").at(-1) ?? field;
const show = (v: string | number | boolean) => String(v);

/** Every combination of the axes' values, the first axis varying slowest. */
function grid(axesList: readonly TSweepAxis[]): Record<string, string | number | boolean>[] {
  return axesList.reduce<Record<string, string | number | boolean>[]>(
    (combos, axis) => combos.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.field]: v }))),
    [{}],
  );
}

/** The number of runs an experiment makes before any retry. */
export function runCount(e: Pick<TExperimentCreate, "variants" | "sweep" | "repetitions">): number {
  const v = e.variants?.length ?? 1;
  const points = (e.sweep ?? []).reduce((n, a) => n * a.values.length, 1);
  return v * points * e.repetitions;
}

/**
 * The experiment's variants, each validated as a whole run definition. An issue names where it
 * comes from: the base (`base.workload.vus`), a variant's patch (`variants[1].patch.topology…`) or a
 * sweep value (`sweep[0].values[2]`), with the variant's name in the message.
 */
export function expandExperiment(e: TExperimentCreate): TExpansion {
  const total = runCount(e);
  const points = (e.sweep ?? []).reduce((n, a) => n * a.values.length, 1);
  const variantCount = (e.variants?.length ?? 1) * points;
  if (total > EXPERIMENT_LIMITS.runs.max) {
    const path = e.sweep ? "sweep" : "variants";
    return {
      ok: false,
      issues: [
        {
          path: "repetitions",
          message: `the experiment would make ${total} runs (${variantCount} variant(s) × ${e.repetitions} repetition(s)); at most ${EXPERIMENT_LIMITS.runs.max}: fewer ${path === "sweep" ? "sweep values" : "variants"} or repetitions`,
        },
      ],
    };
  }
  const issues: FieldIssue[] = [];
  const bad = forbiddenKey(e.base, "base") ?? e.variants?.map((v, i) => forbiddenKey(v.patch, `variants.${i}.patch`)).find(Boolean);
  if (bad) return { ok: false, issues: [{ path: bad, message: `${bad}: this key is not allowed` }] };
  // applyPatch drops these keys, so a sweep over one would make identical variants.
  const axis = e.sweep?.findIndex((a) => a.field.split(".").some((k) => FORBIDDEN_KEYS.has(k))) ?? -1;
  if (axis >= 0) {
    const path = `sweep.${axis}.field`;
    return { ok: false, issues: [{ path, message: `${path}: ${e.sweep![axis]!.field} is not a field of the run definition` }] };
  }

  const defs: TVariantDef[] = e.variants ?? [{ name: "base", patch: {} }];
  const combos = grid(e.sweep ?? []);
  const seen = new Set<string>();
  const out: TExpandedVariant[] = [];
  defs.forEach((def, vi) => {
    for (const combo of combos) {
      const axisNames = Object.entries(combo).map(([f, v]) => `${label(f)}=${show(v)}`);
      const name = [e.variants ? def.name : "", ...axisNames].filter(Boolean).join(" · ") || def.name;
      const patch = Object.entries(combo).reduce((p, [f, v]) => applyPatch(p, patchOf(f, v)), def.patch);
      const merged = applyPatch(e.base, patch);
      if (e.name && !("name" in def.patch)) merged.name = `${e.name} · ${name}`.slice(0, 200);
      const parsed = ZRunCreate.safeParse(merged);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const at = issue.path.map(String).join(".");
          const keys = issue.code === "unrecognized_keys" ? issue.keys.map((k) => (at ? `${at}.${k}` : k)) : [at];
          for (const key of keys) {
            const where = issueOrigin(e, vi, key);
            const message = where.startsWith("base")
              ? issue.message
              : `variant "${where.startsWith("variants.") ? def.name : name}": ${issue.message}`;
            const id = `${where}\u0000${message}`;
            if (seen.has(id)) continue;
            seen.add(id);
            issues.push({ path: where, message });
          }
        }
        continue;
      }
      const extra = runThresholdsOf(e);
      if (extra.length > 0) {
        const own = parsed.data.thresholds.length;
        let refused = false;
        for (const t of extra) {
          const where = `thresholds.${e.thresholds.indexOf(t)}.metric`;
          for (const issue of thresholdIssues([t], parsed.data.workload)) {
            const message = `variant "${name}": ${issue.message.replace(/^thresholds\.0\.metric/, where)}`;
            refused = true;
            if (seen.has(`${where}\u0000${message}`)) continue;
            seen.add(`${where}\u0000${message}`);
            issues.push({ path: where, message });
          }
        }
        if (own + extra.length > THRESHOLD_LIMITS.thresholds.max) {
          refused = true;
          issues.push({
            path: "thresholds",
            message: `variant "${name}": its runs would have ${own + extra.length} thresholds (${own} of its own, ${extra.length} of the experiment's); at most ${THRESHOLD_LIMITS.thresholds.max}`,
          });
        }
        if (refused) continue;
        parsed.data.thresholds = [...parsed.data.thresholds, ...extra];
      }
      out.push({ index: out.length, source: vi, name, axes: combo, patch, run: parsed.data });
    }
  });
  if (issues.length > 0) return { ok: false, issues };
  let baseline = 0;
  if (e.baseline !== undefined) {
    baseline = out.findIndex((v) => v.name === e.baseline);
    if (baseline < 0) {
      return {
        ok: false,
        issues: [{ path: "baseline", message: `baseline must name a variant: one of ${out.map((v) => `"${v.name}"`).join(", ")}` }],
      };
    }
  }
  return { ok: true, variants: out, baseline, runs: total };
}

/** The experiment's per-run thresholds (added to every run's own). */
export const runThresholdsOf = (e: Pick<TExperimentCreate, "thresholds">): TThreshold[] =>
  e.thresholds.filter((t): t is TThreshold => !isComparisonThreshold(t));

/** The experiment's comparison thresholds (each variant against the baseline). */
export const comparisonThresholdsOf = (e: Pick<TExperimentCreate, "thresholds">): TComparisonThreshold[] =>
  e.thresholds.filter((t): t is TComparisonThreshold => isComparisonThreshold(t));

/** Where a field of the run definition of variant `source` was set: the sweep, the variant's patch, or the base. */
export function issueOrigin(e: TExperimentCreate, source: number, path: string): string {
  const def = e.variants?.[source];
  const axis = (e.sweep ?? []).findIndex((a) => path === a.field || path.startsWith(`${a.field}.`) || a.field.startsWith(`${path}.`));
  if (axis >= 0) return `sweep.${axis}.values`;
  if (def && hasPath(def.patch, path)) return `variants.${source}.patch.${path}`;
  return path ? `base.${path}` : "base";
}

function hasPath(obj: Record<string, unknown>, path: string): boolean {
  let at: unknown = obj;
  for (const key of path.split(".")) {
    if (!isPlainObject(at) || !(key in at)) return false;
    at = at[key];
  }
  return true;
}

/** The order runs are queued in: repetition by repetition, every variant in each (A, B, C, A, B, C, …). */
export function runOrder(variantCount: number, repetitionCount: number): { variant: number; repetition: number }[] {
  const order: { variant: number; repetition: number }[] = [];
  for (let repetition = 0; repetition < repetitionCount; repetition++) {
    for (let variant = 0; variant < variantCount; variant++) order.push({ variant, repetition });
  }
  return order;
}

/** Seconds an experiment is expected to take: each run's load, its overhead and the settle pause before it (images built on first use not included). */
export function estimateSeconds(variantsList: readonly Pick<TExpandedVariant, "run">[], repetitionCount: number, settle: number): number {
  const perRound = variantsList.reduce((s, v) => s + v.run.workload.durationSeconds + RUN_OVERHEAD_SECONDS + settle, 0);
  return Math.max(0, perRound * repetitionCount - settle);
}

/** The rows an experiment is stored as: itself and its runs in queue order (ids given by the caller). */
export function experimentRecords(
  input: TExperimentCreate,
  expansion: Extract<TExpansion, { ok: true }>,
  ids: { experiment: string; run: () => string },
  opts: { preset?: string } = {},
) {
  const estimatedSeconds = estimateSeconds(expansion.variants, input.repetitions, input.settleSeconds);
  const runs = runOrder(expansion.variants.length, input.repetitions).map(({ variant, repetition }) => {
    const v = expansion.variants[variant]!;
    return {
      id: ids.run(),
      name: v.run.name ?? null,
      engine: v.run.engine,
      status: "queued" as const,
      step: "queued" as const,
      // Stored with the balancer's defaults written out, as a single run is.
      topology: { ...v.run.topology, balancer: explicitBalancer(v.run.topology.balancer) },
      workload: v.run.workload,
      faults: v.run.faults,
      thresholds: v.run.thresholds,
      experimentId: ids.experiment,
      variant,
      repetition,
      attempt: 1,
    };
  });
  const experiment = {
    id: ids.experiment,
    name: input.name,
    definition: input,
    variants: expansion.variants.map((v) => ({ name: v.name, axes: v.axes, patch: v.patch })),
    baseline: expansion.baseline,
    repetitions: input.repetitions,
    settleSeconds: input.settleSeconds,
    plannedRuns: runs.length,
    estimatedSeconds,
    preset: opts.preset ?? null,
  };
  return { experiment, runs };
}
