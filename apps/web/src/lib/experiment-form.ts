import {
  EXPERIMENT_LIMITS,
  SCALE_FIELDS,
  USL_MIN_POINTS,
  ZExperimentCreate,
  ZVariantDef,
  type TExperimentCreate,
  type TExperimentCreateInput,
} from "@scalelab/scenarios/experiments";
import { fieldInfo, type FieldInfo } from "@scalelab/scenarios/contract";
import type { FieldIssue } from "./issues";
import { infoOf, rangeOf, SECTIONS, withHost, type FormPath, type HostBounds } from "./run-form";

/**
 * The new-experiment form: its values are texts as typed (JSON for the base run and the patches,
 * comma-separated sweep values); `buildDefinition` turns them into the API body, or names the
 * textareas whose JSON does not parse. The server's issues are placed on the field they name.
 * Ranges, defaults and lengths are read from ZExperimentCreate (and ZVariantDef, EXPERIMENT_LIMITS
 * for counts); a new setting of the experiment is one line in EXPERIMENT_FIELDS.
 */

/** The experiment's own settings: its fields that are a number or a text (the rest have their own sections). */
export type ExperimentField = Exclude<
  keyof TExperimentCreateInput,
  "base" | "variants" | "sweep" | "baseline" | "thresholds" | "regression"
>;

export type ExperimentFieldSpec = {
  /** The field in ZExperimentCreate and in the form's values. */
  path: ExperimentField;
  /** The control's data-testid. */
  testId: string;
  label: string;
  /** Shown after the schema's range. */
  hint?: string;
  /** Defaults to the schema's default. */
  placeholder?: string;
  wide?: true;
};

export const EXPERIMENT_FIELDS: readonly ExperimentFieldSpec[] = [
  {
    path: "name",
    testId: "experiment-name",
    label: "Name",
    wide: true,
    placeholder: "e.g. replicas 1–4 at 0.2 CPU",
    hint: "Each run is named after it and its variant.",
  },
  {
    path: "repetitions",
    testId: "experiment-repetitions",
    label: "Repetitions",
    hint: "Runs of each variant; more of them tell a smaller difference from noise.",
  },
  { path: "settleSeconds", testId: "experiment-settle", label: "Settle pause (s)", hint: "Quiet before each run." },
];

/** A setting's control, range and default, from ZExperimentCreate. */
export const experimentInfo = (path: ExperimentField): FieldInfo => fieldInfo(ZExperimentCreate, path);

/** A variant's name, from ZVariantDef. */
export const VARIANT_NAME_INFO: FieldInfo = fieldInfo(ZVariantDef, "name");

export type VariantRow = { id: string; name: string; patch: string };
export type AxisRow = { id: string; field: string; values: string };
export type ExperimentFormValues = Record<ExperimentField, string> & {
  base: string;
  variants: VariantRow[];
  axes: AxisRow[];
  /** A variant's name; empty = the first. */
  baseline: string;
  /** The experiment's thresholds as a JSON array; empty = none. */
  thresholds: string;
};

let seq = 0;
/** A key for a new variant or axis row (stable while rows are added and removed). */
export const rowId = (): string => `row-${++seq}`;

export const newVariantRow = (name = "", patch = "{}"): VariantRow => ({ id: rowId(), name, patch });
export const newAxisRow = (field = "", values = ""): AxisRow => ({ id: rowId(), field, values });

/** The base a new experiment starts from: a small run to change (not a restated default: the schema fills in the rest). */
export const DEFAULT_BASE = { topology: { service: { replicas: 1, cpus: 0.2 } }, workload: { vus: 4, durationSeconds: 10 } };

export const pretty = (value: unknown): string => JSON.stringify(value, null, 2);

const textOf = (value: unknown): string => (value === undefined ? "" : String(value));

/** Each setting as its text: the value given, else the schema's default (empty without one). */
function settingsText(given: Partial<Record<ExperimentField, unknown>>, fallback: (info: FieldInfo) => unknown) {
  return Object.fromEntries(
    EXPERIMENT_FIELDS.map(({ path }) => [path, textOf(given[path] !== undefined ? given[path] : fallback(experimentInfo(path)))]),
  ) as Record<ExperimentField, string>;
}

export function defaultForm(): ExperimentFormValues {
  return { ...settingsText({}, (info) => info.default), base: pretty(DEFAULT_BASE), variants: [], axes: [], baseline: "", thresholds: "" };
}

/** The settle pause the form stands for: the one typed, else the schema's default. */
export function settleSecondsOf(v: Pick<ExperimentFormValues, "settleSeconds">): number {
  return numberOf(v.settleSeconds) ?? (experimentInfo("settleSeconds").default as number);
}

/** Whether another variant or sweep axis may be added (the schema's counts). */
export const canAdd = (v: Pick<ExperimentFormValues, "variants" | "axes">, what: "variants" | "axes"): boolean =>
  v[what].length < EXPERIMENT_LIMITS[what].max;

/** The run form's section and field (its first) for a path of the run definition. */
const runFieldAt = (path: string) =>
  SECTIONS.flatMap((section) => section.fields.map((field) => ({ section, field }))).find(({ field }) => field.path === path);

/**
 * What a field of the run definition is, for a sweep: the run form's section and label, then the
 * schema's range or values (the range this host allows, when its bounds are known: "0.05–2").
 */
export function describeRunField(path: string, host?: HostBounds): string | null {
  const at = runFieldAt(path);
  if (!at) return null;
  const info = withHost(at.field.path, infoOf(at.field.path), host);
  const values = info.kind === "enum" ? info.options.join(", ") : info.kind === "boolean" ? "true, false" : rangeOf(info);
  return [`${at.section.title}: ${at.field.label}`, values].filter(Boolean).join(" · ");
}

/** Fields a sweep commonly sets (offered in the axis field's list; any dotted path of the run definition goes). */
export const SWEEP_FIELDS: readonly FormPath[] = [
  "topology.service.replicas",
  "topology.service.cpus",
  "topology.service.threads",
  "topology.service.workerPool",
  "topology.service.queueLimit",
  "topology.service.cpuIterations",
  "topology.service.logging",
  "topology.balancer.algorithm",
  "topology.balancer.kind",
  "workload.vus",
  "workload.connections",
  "workload.arrivalRate",
  "workload.endpoint",
  "workload.loadgenCpus",
];

/** A run field's label in the run form (its first), lower case: "virtual users". */
export const runFieldLabel = (path: string): string | undefined => runFieldAt(path)?.field.label.toLowerCase();

/** The scale knobs a USL is fitted to, in the run form's words, and the fewest points it is fitted to. */
export const SCALE_KNOBS = SCALE_FIELDS.map((f) => runFieldLabel(f) ?? f).join(", ");
export { USL_MIN_POINTS };

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A JSON object typed in a textarea; `empty` is what a blank text means (undefined = required). */
export function parseJsonObject(text: string, empty?: Record<string, unknown>): Parsed<Record<string, unknown>> {
  if (text.trim() === "") return empty ? { ok: true, value: empty } : { ok: false, error: "Give a JSON object." };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, error: "Must be a JSON object ({ … })." };
  return { ok: true, value: value as Record<string, unknown> };
}

/** The thresholds' JSON array; an empty text is none. */
export function parseJsonArray(text: string): Parsed<unknown[]> {
  if (text.trim() === "") return { ok: true, value: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  return Array.isArray(value) ? { ok: true, value } : { ok: false, error: "Must be a JSON array ([ … ])." };
}

export type SweepValue = string | number | boolean;

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Comma-separated sweep values: numbers ("1, 2, 4", "0.25"), booleans (true, false) and strings
 * (round_robin); a string that looks like a number or holds a comma goes in double quotes ("8").
 * Empty entries (a trailing comma) are skipped.
 */
export function parseSweepValues(text: string): Parsed<SweepValue[]> {
  const tokens: { text: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text[i] === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (j >= text.length) return { ok: false, error: "A quoted value is not closed." };
      let value: string;
      try {
        value = JSON.parse(text.slice(i, j + 1)) as string;
      } catch {
        return { ok: false, error: `Not a valid quoted value: ${text.slice(i, j + 1)}` };
      }
      tokens.push({ text: value, quoted: true });
      i = j + 1;
      while (i < text.length && /\s/.test(text[i]!)) i++;
      if (i < text.length && text[i] !== ",") return { ok: false, error: "Separate the values with commas." };
      i++;
      continue;
    }
    const end = text.indexOf(",", i);
    const raw = text.slice(i, end < 0 ? text.length : end).trim();
    if (raw !== "") tokens.push({ text: raw, quoted: false });
    i = end < 0 ? text.length : end + 1;
  }
  return {
    ok: true,
    value: tokens.map(({ text: t, quoted }) => {
      if (quoted) return t;
      if (t === "true" || t === "false") return t === "true";
      if (NUMBER.test(t)) return Number(t);
      return t;
    }),
  };
}

/**
 * The hint under a sweep axis's values: the values as read (or how to write them and how many the
 * schema takes), then, for a field the run form knows, its range or values.
 */
export function sweepValuesHint(row: Pick<AxisRow, "field" | "values">, host?: HostBounds): string {
  const parsed = parseSweepValues(row.values);
  const { min, max } = EXPERIMENT_LIMITS.values;
  const read =
    parsed.ok && parsed.value.length > 0
      ? `${parsed.value.length} value${parsed.value.length === 1 ? "" : "s"}: ${parsed.value.map((v) => (typeof v === "string" ? `"${v}"` : String(v))).join(", ")}`
      : `${min}–${max} comma-separated numbers, true/false or words; quote a string that looks like a number ("8")`;
  return [read, describeRunField(row.field.trim(), host)].filter(Boolean).join(" · ");
}

/** Sweep values back to the text `parseSweepValues` reads. */
export function formatSweepValues(values: readonly SweepValue[]): string {
  return values
    .map((v) => {
      if (typeof v !== "string") return String(v);
      const plain = v !== "" && v === v.trim() && !/[,"]/.test(v) && v !== "true" && v !== "false" && !NUMBER.test(v);
      return plain ? v : JSON.stringify(v);
    })
    .join(", ");
}

/** A number input's text: empty is "not given" (the schema's default applies). */
function numberOf(text: string): number | undefined {
  return text.trim() === "" ? undefined : Number(text);
}

/** A setting's text as the API wants it: a number (empty = not given) or trimmed text (empty = not given when optional). */
function settingValue(path: ExperimentField, text: string): number | string | undefined {
  const info = experimentInfo(path);
  if (info.kind === "number") return numberOf(text);
  return text.trim() === "" && info.optional ? undefined : text.trim();
}

export type Built = {
  /** The API body, or null while some JSON does not parse. */
  body: TExperimentCreateInput | null;
  /** Parse errors by field key (`base`, `variants[1].patch`, `sweep[0].values`). */
  errors: Record<string, string>;
};

export function buildDefinition(v: ExperimentFormValues): Built {
  const errors: Record<string, string> = {};
  const base = parseJsonObject(v.base);
  if (!base.ok) errors.base = base.error;
  const variants = v.variants.map((row, i) => {
    const patch = parseJsonObject(row.patch, {});
    if (!patch.ok) errors[`variants[${i}].patch`] = patch.error;
    return { name: row.name.trim(), patch: patch.ok ? patch.value : {} };
  });
  const sweep = v.axes.map((row, i) => {
    const values = parseSweepValues(row.values);
    if (!values.ok) errors[`sweep[${i}].values`] = values.error;
    return { field: row.field.trim(), values: values.ok ? values.value : [] };
  });
  const thresholds = parseJsonArray(v.thresholds);
  if (!thresholds.ok) errors.thresholds = thresholds.error;
  if (Object.keys(errors).length > 0 || !base.ok || !thresholds.ok) return { body: null, errors };
  const settings = EXPERIMENT_FIELDS.flatMap(({ path }) => {
    const value = settingValue(path, v[path]);
    return value === undefined ? [] : [[path, value] as const];
  });
  const body = {
    ...Object.fromEntries(settings),
    base: base.value,
    ...(variants.length > 0 && { variants }),
    ...(sweep.length > 0 && { sweep }),
    ...(v.baseline !== "" && { baseline: v.baseline }),
    ...(thresholds.value.length > 0 && { thresholds: thresholds.value }),
  } as TExperimentCreateInput;
  return { body, errors };
}

/** The form for "copy and change": an experiment's definition as it was created. */
export function formFromDefinition(d: TExperimentCreate | TExperimentCreateInput, opts: { copy?: boolean } = {}): ExperimentFormValues {
  const nameInfo = experimentInfo("name");
  const name = opts.copy ? `${d.name} (copy)`.slice(0, nameInfo.kind === "text" ? (nameInfo.maxLength ?? undefined) : undefined) : d.name;
  return {
    // A setting the definition leaves out stays empty: its default applies again.
    ...settingsText({ ...d, name }, () => undefined),
    base: pretty(d.base),
    variants: (d.variants ?? []).map((x) => newVariantRow(x.name, JSON.stringify(x.patch ?? {}))),
    axes: (d.sweep ?? []).map((a) => newAxisRow(a.field, formatSweepValues(a.values))),
    baseline: d.baseline ?? "",
    thresholds: (d.thresholds ?? []).length > 0 ? pretty(d.thresholds) : "",
  };
}

type RunLike = { topology: unknown; workload: unknown; faults: readonly Record<string, unknown>[] };

/** A run's definition as a base: its topology, workload and faults (without what happened to them), no name. */
export function baseFromRun(run: RunLike): Record<string, unknown> {
  const faults = run.faults.map(({ actual: _actual, ...f }) => f);
  return { topology: run.topology, workload: run.workload, ...(faults.length > 0 && { faults }) };
}

/** The server's paths in one form: Zod's `variants.1.name` and the planner's `variants[1].name` both become the latter. */
export function normalizeIssuePath(path: string): string {
  return path.replace(/\.(\d+)(?=\.|\[|$)/g, "[$1]");
}

/** The keys of the form's fields an issue can land on. */
export type FieldKey =
  | ExperimentField
  | "base"
  | "baseline"
  | "thresholds"
  | "variants"
  | "sweep"
  | `variants[${number}].name`
  | `variants[${number}].patch`
  | `sweep[${number}].field`
  | `sweep[${number}].values`;

/** The field an issue belongs to, or null when none on screen does (then it is listed at the top only). */
export function fieldOfIssue(path: string, rows: { variants: number; axes: number }): FieldKey | null {
  const p = normalizeIssuePath(path);
  if (p === "baseline") return p;
  if (p === "thresholds" || p.startsWith("thresholds[")) return "thresholds";
  const setting = EXPERIMENT_FIELDS.find((f) => f.path === p);
  if (setting) return setting.path;
  if (p === "base" || p.startsWith("base.") || p.startsWith("base[")) return "base";
  const variant = /^variants\[(\d+)\](?:\.(\w+))?/.exec(p);
  if (variant) {
    const i = Number(variant[1]);
    if (i >= rows.variants) return "variants";
    return variant[2] === "name" ? `variants[${i}].name` : `variants[${i}].patch`;
  }
  if (p === "variants") return "variants";
  const axis = /^sweep\[(\d+)\](?:\.(\w+))?/.exec(p);
  if (axis) {
    const i = Number(axis[1]);
    if (i >= rows.axes) return "sweep";
    return axis[2] === "field" ? `sweep[${i}].field` : `sweep[${i}].values`;
  }
  if (p === "sweep") return "sweep";
  return null;
}

export type PlacedIssue = FieldIssue & { field: FieldKey | null };

const VARIANT_MESSAGE = /^variant "(.+?)": (.*)$/s;

/**
 * One issue for a problem that every point of a sweep repeats (`variant "b · vus=2": service.cpus
 * must be …`, `variant "b · vus=4": …`): the message once, with the variants it is in.
 */
export function collapseVariantIssues(issues: readonly FieldIssue[]): FieldIssue[] {
  const groups = new Map<string, { path: string; message: string; variants: string[] }>();
  const out: (FieldIssue | { group: string })[] = [];
  for (const i of issues) {
    const m = VARIANT_MESSAGE.exec(i.message);
    if (!m) {
      out.push(i);
      continue;
    }
    const key = `${i.path}\u0000${m[2]}`;
    const group = groups.get(key);
    if (group) group.variants.push(m[1]!);
    else {
      groups.set(key, { path: i.path, message: m[2]!, variants: [m[1]!] });
      out.push({ group: key });
    }
  }
  return out.map((i) => {
    if (!("group" in i)) return i;
    const g = groups.get(i.group)!;
    if (g.variants.length === 1) return { path: g.path, message: `variant "${g.variants[0]}": ${g.message}` };
    const names =
      g.variants.length > 4
        ? [...g.variants.slice(0, 3).map((v) => `"${v}"`), `${g.variants.length - 3} more`]
        : g.variants.map((v) => `"${v}"`);
    return { path: g.path, message: `${g.variants.length} variants (${names.join(", ")}): ${g.message}` };
  });
}

/** Issues with the field each belongs to, duplicates dropped and repeats across variants merged; `byField` groups those that have one. */
export function placeIssues(issues: readonly FieldIssue[], rows: { variants: number; axes: number }) {
  const seen = new Set<string>();
  const all: PlacedIssue[] = [];
  const normalized = issues.map((i) => ({ path: normalizeIssuePath(i.path), message: i.message }));
  for (const i of collapseVariantIssues(normalized)) {
    const id = `${i.path}\u0000${i.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    all.push({ path: i.path, message: i.message, field: fieldOfIssue(i.path, rows) });
  }
  const byField: Partial<Record<FieldKey, PlacedIssue[]>> = {};
  for (const i of all) if (i.field) (byField[i.field] ??= []).push(i);
  return { all, byField };
}

/** The DOM id of a field, for the issue summary's links. */
export const fieldDomId = (key: string): string => `xf-${key.replace(/[^A-Za-z0-9]+/g, "-").replace(/-$/, "")}`;
