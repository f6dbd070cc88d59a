import { toFieldIssues, type FieldIssue } from "~/lib/issues";

export type { FieldIssue };

export type AppErrorKind = "invalid_input" | "not_found" | "conflict" | "unavailable";

/** An expected failure of a service function; tRPC and REST map `kind` to a status code. */
export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly kind: AppErrorKind,
    message: string,
    readonly issues: FieldIssue[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const invalidInput = (issues: FieldIssue[]) => new AppError("invalid_input", "Input validation failed", issues);
export const runNotFound = (id: string) => new AppError("not_found", `run ${id} not found`);

/** The field issues carried by an error's cause, or null when it is not a validation failure. */
export function fieldIssuesOf(cause: unknown): FieldIssue[] | null {
  if (cause instanceof AppError) return cause.issues.length > 0 ? cause.issues : null;
  if (typeof cause === "object" && cause !== null && "issues" in cause && Array.isArray(cause.issues)) {
    return toFieldIssues(cause.issues as { path?: unknown[]; message: string }[]);
  }
  return null;
}
