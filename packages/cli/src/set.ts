import type { z } from "zod";
import { UsageError } from "./errors";

/** `--set a.b.c=value`: the path's segments (an array's index as a number) and the value. */
export type Assignment = { text: string; path: (string | number)[]; value: unknown };

/** Keys that would reach an object's prototype: never a field of the lab's definitions. */
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);
const SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]*$|^\d{1,4}$/;

/**
 * Parses `--set path=value`. The value is JSON when it parses as JSON (`3`, `true`, `[1,2]`,
 * `{"a":1}`, `"3"` for a string of digits), else the text itself (`round_robin`).
 */
export function parseAssignment(text: string): Assignment {
  const eq = text.indexOf("=");
  if (eq <= 0) throw new UsageError(`--set ${text}: write --set path=value, e.g. --set topology.service.replicas=3`);
  const pathText = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  const path = pathText.split(".").map((segment) => {
    if (!SEGMENT.test(segment) || FORBIDDEN.has(segment)) {
      throw new UsageError(
        `--set ${pathText}: "${segment}" is not a field name (a path is field names and array indexes separated by dots, e.g. topology.service.replicas or faults.0.at)`,
      );
    }
    return /^\d+$/.test(segment) ? Number(segment) : segment;
  });
  return { text, path, value: parseValue(raw) };
}

export function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

type Step = { kind: "schema"; schema: z.ZodType } | { kind: "any" } | { kind: "unknown"; known: string[] } | { kind: "value" };
type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema itself, without the wrappers that do not change what may be inside it. */
function unwrap(schema: z.ZodType): z.ZodType {
  for (let i = 0; i < 20; i++) {
    const def = defOf(schema);
    if (["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"].includes(def.type)) {
      schema = def.innerType as z.ZodType;
    } else if (def.type === "pipe") schema = def.in as z.ZodType;
    else if (def.type === "lazy") schema = (def.getter as () => z.ZodType)();
    else return schema;
  }
  return schema;
}

/** What a key or an index of a value of `schema` may hold. */
function child(schema: z.ZodType, key: string | number): Step {
  const inner = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case "object": {
      const shape = def.shape as Record<string, z.ZodType>;
      if (typeof key === "string" && Object.hasOwn(shape, key)) return { kind: "schema", schema: shape[key]! };
      return { kind: "unknown", known: Object.keys(shape) };
    }
    case "union": {
      const steps = (def.options as z.ZodType[]).map((o) => child(o, key));
      const found = steps.find((s) => s.kind === "schema" || s.kind === "any");
      if (found) return found;
      const known = [...new Set(steps.flatMap((s) => (s.kind === "unknown" ? s.known : [])))];
      return known.length > 0 ? { kind: "unknown", known } : { kind: "value" };
    }
    case "intersection": {
      const left = child(def.left as z.ZodType, key);
      return left.kind === "schema" || left.kind === "any" ? left : child(def.right as z.ZodType, key);
    }
    case "array":
      return typeof key === "number" ? { kind: "schema", schema: def.element as z.ZodType } : { kind: "value" };
    case "record":
      return typeof key === "string" ? { kind: "schema", schema: def.valueType as z.ZodType } : { kind: "value" };
    case "custom":
    case "any":
    case "unknown":
      return { kind: "any" };
    default:
      return { kind: "value" };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What a definition file is: its schema, what to call it in messages ("a run"), and schemas of fields the root leaves open (an experiment's `base` is a run). */
export type Target = { schema: z.ZodType; what: string; fields?: Record<string, z.ZodType> };

/**
 * Sets each assignment into `doc` (changed in place), checking its path against the schema first:
 * an unknown field (at the top or deeper) or a path through a value is a usage error naming it.
 * Missing objects and arrays on the way are created; an index may extend an array by one.
 */
export function applyAssignments(doc: Record<string, unknown>, assignments: readonly Assignment[], target: Target): void {
  for (const a of assignments) checkPath(a, target);
  for (const a of assignments) setPath(doc, a);
}

function checkPath(a: Assignment, target: Target): void {
  let step: Step = { kind: "schema", schema: target.schema };
  const done: (string | number)[] = [];
  for (const key of a.path) {
    const override = done.length === 0 && typeof key === "string" ? target.fields?.[key] : undefined;
    if (override) step = { kind: "schema", schema: override };
    else if (step.kind === "schema") step = child(step.schema, key);
    else if (step.kind === "any") return;
    if (step.kind === "unknown") {
      const where = done.length === 0 ? target.what : done.join(".");
      const label = done.length === 0 ? `${key} is not a field of ${where}` : `${where} has no field ${key}`;
      throw new UsageError(`--set ${a.path.join(".")}: ${label} (fields: ${step.known.join(", ")})`);
    }
    if (step.kind === "value") {
      const at = done.join(".");
      throw new UsageError(
        `--set ${a.path.join(".")}: ${at} is a single value, not an object or a list${typeof key === "number" ? " (no index)" : ` (no field ${key})`}`,
      );
    }
    done.push(key);
  }
}

function setPath(doc: Record<string, unknown>, a: Assignment): void {
  let node: Record<string, unknown> | unknown[] = doc;
  a.path.forEach((key, i) => {
    const last = i === a.path.length - 1;
    const here = a.path.slice(0, i + 1).join(".");
    if (Array.isArray(node)) {
      if (typeof key !== "number")
        throw new UsageError(`--set ${a.path.join(".")}: ${a.path.slice(0, i).join(".")} is a list: use an index`);
      if (key > node.length) {
        throw new UsageError(
          `--set ${a.path.join(".")}: ${a.path.slice(0, i).join(".")} has ${node.length} entries; the next is ${node.length}`,
        );
      }
    } else if (typeof key === "number") {
      throw new UsageError(`--set ${a.path.join(".")}: ${a.path.slice(0, i).join(".") || "the definition"} is an object, not a list`);
    }
    const container = node as Record<string | number, unknown>;
    if (last) {
      container[key] = a.value;
      return;
    }
    const next = container[key];
    if (next === undefined || next === null) {
      const created: Record<string, unknown> | unknown[] = typeof a.path[i + 1] === "number" ? [] : {};
      container[key] = created;
      node = created;
    } else if (isObject(next) || Array.isArray(next)) {
      node = next;
    } else {
      throw new UsageError(`--set ${a.path.join(".")}: ${here} is ${JSON.stringify(next)} in the file, not an object or a list`);
    }
  });
}
