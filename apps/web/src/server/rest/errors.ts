import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { TRPCError } from "@trpc/server";
import { z } from "zod";
import { AppError, fieldIssuesOf, type FieldIssue } from "../errors";
import { INTERNAL_MESSAGE } from "../trpc";

/** The body of every REST error: a stable machine-readable `error`, and per-field `issues` for invalid input. */
export const ZRestError = z.object({
  error: z
    .string()
    .describe(
      "invalid_input | invalid_json | not_found | method_not_allowed | conflict | payload_too_large | unsupported_media_type | quota_exceeded | unprocessable | unavailable | internal | …",
    ),
  message: z.string(),
  issues: z
    .array(z.object({ path: z.string().describe("e.g. topology.service.replicas"), message: z.string() }))
    .optional()
    .describe("one per invalid field, naming the field and the allowed range"),
});
export type TRestError = z.infer<typeof ZRestError>;

/** A REST error response: JSON in the ZRestError shape. */
export function restError(status: number, body: TRestError, headers?: HeadersInit): Response {
  return Response.json(body, { status, headers });
}

export const invalidInputError = (issues: FieldIssue[]): TRestError => ({
  error: "invalid_input",
  message: "Input validation failed",
  issues,
});

const NAMES: Record<string, string> = {
  BAD_REQUEST: "bad_request",
  PARSE_ERROR: "invalid_json",
  NOT_FOUND: "not_found",
  CONFLICT: "conflict",
  SERVICE_UNAVAILABLE: "unavailable",
  INTERNAL_SERVER_ERROR: "internal",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
  METHOD_NOT_SUPPORTED: "method_not_allowed",
  PAYLOAD_TOO_LARGE: "payload_too_large",
};

/**
 * The status and body of a procedure's error: invalid input with its field issues, the
 * message of an expected failure (not found, conflict, unavailable), and for anything
 * unexpected a generic message only; the caller logs the error itself.
 */
export function fromTrpcError(error: TRPCError): { status: number; body: TRestError; headers?: Record<string, string> } {
  const status = getHTTPStatusCodeFromError(error);
  const cause = error.cause;
  if (cause instanceof AppError && (cause.kind === "quota" || cause.kind === "queue_full")) {
    const body: TRestError = { error: "quota_exceeded", message: cause.message, ...(cause.issues.length > 0 && { issues: cause.issues }) };
    const retry = cause.retryAfterSeconds;
    return { status, body, ...(retry !== undefined && { headers: { "retry-after": String(Math.max(1, Math.ceil(retry))) } }) };
  }
  if (cause instanceof AppError && cause.kind === "unprocessable") {
    return { status, body: { error: "unprocessable", message: cause.message, ...(cause.issues.length > 0 && { issues: cause.issues }) } };
  }
  const issues = error.code === "BAD_REQUEST" ? fieldIssuesOf(error.cause) : null;
  if (issues && issues.length > 0) return { status, body: invalidInputError(issues) };
  if (status >= 500 && error.code !== "SERVICE_UNAVAILABLE") {
    return { status, body: { error: "internal", message: INTERNAL_MESSAGE } };
  }
  return { status, body: { error: NAMES[error.code] ?? error.code.toLowerCase(), message: error.message } };
}
