import type { FieldIssue } from "@scalelab/scenarios/contract";

export type { FieldIssue };

type IssueLike = { path?: readonly unknown[]; message: string; code?: string; keys?: readonly string[] };

const pathOf = (path: readonly unknown[] | undefined): string =>
  (path ?? [])
    .map((seg) => (typeof seg === "object" && seg !== null && "key" in seg ? (seg as { key: PropertyKey }).key : seg))
    .map(String)
    .join(".");

/** Zod's default wording for a missing value, replaced by one that names the field. */
const MISSING = /^Invalid input: expected \w+, received undefined$/;

const join = (...parts: string[]) => parts.filter(Boolean).join(".");

/**
 * Validation issues (Zod or any Standard Schema) flattened to one `{ path, message }` per field
 * problem. Zod reports unknown keys once, at the object; each becomes an issue at `<object>.<key>`.
 */
export function toFieldIssues(issues: readonly IssueLike[]): FieldIssue[] {
  return issues.flatMap((i) => {
    const path = pathOf(i.path);
    if (i.code === "unrecognized_keys" && i.keys?.length) return i.keys.map((key) => ({ path: join(path, key), message: i.message }));
    const message = MISSING.test(i.message) && path ? `${path} is required` : i.message;
    return [{ path, message }];
  });
}

/** Field issues keyed by path; the first issue of a path wins. */
export function issuesByPath(issues: readonly FieldIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) out[i.path] ??= i.message;
  return out;
}
