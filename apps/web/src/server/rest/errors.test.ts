import { describe, expect, it } from "vitest";
import { toRestError } from "./errors";

describe("toRestError", () => {
  it("turns a validation failure into invalid_input with the per-field issues", () => {
    const issues = [{ path: "topology.service.replicas", message: "service.replicas must be between 1 and 16" }];
    const body = { message: "Input validation failed", code: "BAD_REQUEST", data: { code: "BAD_REQUEST", httpStatus: 400, issues }, issues: [{ code: "too_big" }] };
    expect(toRestError(400, body)).toEqual({ error: "invalid_input", message: "Input validation failed", issues });
  });

  it("names other errors in snake case and keeps their message", () => {
    expect(toRestError(404, { message: "run x not found", code: "NOT_FOUND", data: { issues: null } })).toEqual({
      error: "not_found",
      message: "run x not found",
    });
    expect(toRestError(400, { message: "Failed to parse request body", code: "PARSE_ERROR" })).toEqual({
      error: "invalid_json",
      message: "Failed to parse request body",
    });
  });

  it("does not return the message of an unexpected error", () => {
    expect(toRestError(500, { message: 'relation "runs" does not exist', code: "INTERNAL_SERVER_ERROR" })).toEqual({
      error: "internal",
      message: "Internal server error",
    });
  });

  it("copes with a body that is not JSON", () => {
    expect(toRestError(502, null)).toEqual({ error: "internal", message: "Internal server error" });
  });
});
