import type { FieldIssue } from "./errors";

/** At most this many issues are reported; one per field is enough to fix a request. */
const MAX_ISSUES = 20;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why Postgres could not store this text (NUL in `text` and `jsonb`; lone surrogates are not UTF-8), or null. */
function flaw(s: string): string | null {
  if (s.includes("\u0000")) return "must not contain NUL bytes";
  if (LONE_SURROGATE.test(s)) return "must be valid Unicode (it contains an unpaired surrogate)";
  return null;
}

/** A value to visit; the path is built from the parents only when an issue is found. */
type Frame = { value: unknown; key: string | number | null; parent: Frame | null };

function pathOf(frame: Frame): string {
  const keys: (string | number)[] = [];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) keys.push(f.key);
  return keys.reverse().join(".");
}

/**
 * Every string (and object key) of a request's raw input that the database cannot store, as
 * one issue per field: `{ path: "name", message: "name must not contain NUL bytes" }`. Walks
 * the value without recursion, so a deeply nested body cannot exhaust the stack.
 */
export function unstorableText(input: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const stack: Frame[] = [{ value: input, key: null, parent: null }];
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const frame = stack.pop()!;
    const { value } = frame;
    if (typeof value === "string") {
      const why = flaw(value);
      if (why) {
        const path = pathOf(frame);
        issues.push({ path, message: `${path || "the input"} ${why}` });
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: frame });
    } else if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, v] = entries[i]!;
        const why = flaw(key);
        if (why) {
          const printable = JSON.stringify(key).slice(1, -1);
          const parent = pathOf(frame);
          issues.push({ path: parent ? `${parent}.${printable}` : printable, message: `the field name "${printable}" ${why}` });
        } else {
          stack.push({ value: v, key, parent: frame });
        }
      }
    }
  }
  return issues;
}
