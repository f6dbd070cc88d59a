import type { FieldIssue } from "@scalelab/scenarios/host";

export type { FieldIssue };

type IssueLike = { path?: readonly unknown[]; message: string };

const pathOf = (path: readonly unknown[] | undefined): string =>
  (path ?? [])
    .map((seg) => (typeof seg === "object" && seg !== null && "key" in seg ? (seg as { key: PropertyKey }).key : seg))
    .map(String)
    .join(".");

/** Zod's default wording for a missing value, replaced by one that names the field. */
const MISSING = /^Invalid input: expected \w+, received undefined$/;

/** Validation issues (Zod or any Standard Schema) flattened to one `{ path, message }` per field problem. */
export function toFieldIssues(issues: readonly IssueLike[]): FieldIssue[] {
  return issues.map((i) => {
    const path = pathOf(i.path);
    const message = MISSING.test(i.message) && path ? `${path} is required` : i.message;
    return { path, message };
  });
}

/** Field issues keyed by path; the first issue of a path wins. */
export function issuesByPath(issues: readonly FieldIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) out[i.path] ??= i.message;
  return out;
}
