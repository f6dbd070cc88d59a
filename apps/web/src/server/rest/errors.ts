import { z } from "zod";
import type { FieldIssue } from "../errors";

/** The body of every REST error: a stable machine-readable `error`, and per-field `issues` for invalid input. */
export const ZRestError = z.object({
  error: z.string().describe("invalid_input | invalid_json | not_found | conflict | unavailable | internal | …"),
  message: z.string(),
  issues: z
    .array(z.object({ path: z.string().describe("e.g. topology.service.replicas"), message: z.string() }))
    .optional()
    .describe("one per invalid field, naming the field and the allowed range"),
});
export type TRestError = z.infer<typeof ZRestError>;

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

type ErrorBody = { message?: unknown; code?: unknown; data?: { issues?: FieldIssue[] | null } };

/** Rewrites the error body trpc-to-openapi produces (a tRPC error shape) into the REST contract's. */
export function toRestError(status: number, body: unknown): TRestError {
  const b: ErrorBody = typeof body === "object" && body !== null ? (body as ErrorBody) : {};
  const issues = b.data?.issues;
  if (issues && issues.length > 0) {
    return { error: "invalid_input", message: "Input validation failed", issues };
  }
  const code = typeof b.code === "string" ? b.code : "INTERNAL_SERVER_ERROR";
  if (status >= 500 && code === "INTERNAL_SERVER_ERROR") {
    // The message of an unexpected error can carry internals (SQL, hosts): it is logged, not returned.
    return { error: "internal", message: "Internal server error" };
  }
  const message = typeof b.message === "string" ? b.message : "Request failed";
  return { error: NAMES[code] ?? code.toLowerCase(), message };
}
