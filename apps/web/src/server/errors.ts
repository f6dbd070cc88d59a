import type { TQuotaRefusal } from "@scalelab/scenarios/experiments";
import { toFieldIssues, type FieldIssue } from "~/lib/issues";

export type { FieldIssue };

/**
 * `quota`: work the lab will never take as it is (an experiment beyond its maximum: 422);
 * `queue_full`: work it takes once the queue has drained (429, with about when);
 * `unprocessable`: a valid request about something that cannot take it (a run without a name as a baseline: 422 naming the field).
 */
export type AppErrorKind = "invalid_input" | "not_found" | "conflict" | "unavailable" | "quota" | "queue_full" | "unprocessable";

/** An expected failure of a service function; tRPC and REST map `kind` to a status code. */
export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly kind: AppErrorKind,
    message: string,
    readonly issues: FieldIssue[] = [],
    options?: ErrorOptions & { retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
  /** When the request may succeed if sent again (REST Retry-After). */
  readonly retryAfterSeconds: number | undefined;
}

/** A quota's refusal (@scalelab/scenarios/experiments quotas.ts) as an error naming the field to change. */
export const quotaExceeded = (r: TQuotaRefusal) =>
  new AppError(r.kind === "wait" ? "queue_full" : "quota", r.message, r.issue.path ? [r.issue] : [], {
    retryAfterSeconds: r.retryAfterSeconds,
  });

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
