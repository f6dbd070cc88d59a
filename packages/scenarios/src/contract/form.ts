import { z } from "zod";

/**
 * What a form needs to know of one field of a schema (its control, range, default), read from the
 * schema itself so the form never restates a bound: a new knob in a component schema is a new
 * field in the form with its range and default already right.
 */
export type FieldInfo =
  | { kind: "number"; int: boolean; min: number | null; max: number | null; default?: number; optional: boolean }
  | { kind: "enum"; options: readonly string[]; default?: string; optional: boolean }
  | { kind: "text"; maxLength: number | null; default?: string; optional: boolean }
  | { kind: "boolean"; default?: boolean; optional: boolean };

type Unwrapped = { schema: z.ZodType; optional: boolean; default?: unknown };

/**
 * Strips optional/default/prefault wrappers, keeping whether the value may be left out and its
 * default; of a pipe (`text(…).pipe(z.string().min(1))`, a transform) the side the form fills in.
 */
function unwrap(schema: z.ZodType): Unwrapped {
  let s = schema;
  let optional = false;
  let fallback: unknown;
  for (;;) {
    if (s instanceof z.ZodOptional) {
      optional = true;
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodDefault) {
      fallback ??= s.def.defaultValue;
      optional = true;
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPrefault) {
      optional = true;
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPipe) {
      s = s.in as z.ZodType;
    } else {
      return { schema: s, optional, default: fallback };
    }
  }
}

/** The field at a dotted path of an object schema, e.g. `topology.service.replicas`; throws for a path it does not have. */
export function fieldInfo(schema: z.ZodType, path: string): FieldInfo {
  let at = unwrap(schema);
  for (const key of path.split(".")) {
    if (!(at.schema instanceof z.ZodObject) || !(key in at.schema.shape)) throw new Error(`no field ${path} in the schema`);
    at = unwrap(at.schema.shape[key] as z.ZodType);
  }
  const { schema: s, optional } = at;
  if (s instanceof z.ZodNumber) {
    return { kind: "number", int: s.isInt, min: finite(s.minValue), max: finite(s.maxValue), optional, ...defaultOf(at, "number") };
  }
  if (s instanceof z.ZodEnum) return { kind: "enum", options: s.options as string[], optional, ...defaultOf(at, "string") };
  if (s instanceof z.ZodString) return { kind: "text", maxLength: s.maxLength, optional, ...defaultOf(at, "string") };
  if (s instanceof z.ZodBoolean) return { kind: "boolean", optional, ...(typeof at.default === "boolean" && { default: at.default }) };
  throw new Error(`field ${path} is not a number, an enum, a string or a boolean`);
}

const finite = (n: number | null) => (n !== null && Number.isFinite(n) ? n : null);

function defaultOf<T extends "number" | "string">(at: Unwrapped, type: T): { default?: T extends "number" ? number : string } {
  return typeof at.default === type ? { default: at.default as T extends "number" ? number : string } : {};
}
