import { TRPCError } from "@trpc/server";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { AppError, invalidInput, quotaExceeded } from "../errors";
import { fromTrpcError, ZRestError } from "./errors";

describe("fromTrpcError", () => {
  it("answers a full queue with 429, Retry-After and quota_exceeded; work that never fits with 422 and the field to change", () => {
    const wait = quotaExceeded({
      kind: "wait",
      message: "the queue already holds …",
      issue: { path: "", message: "the queue already holds …" },
      retryAfterSeconds: 2614.2,
    });
    const full = fromTrpcError(new TRPCError({ code: "TOO_MANY_REQUESTS", message: wait.message, cause: wait }));
    expect(full).toEqual({
      status: 429,
      body: { error: "quota_exceeded", message: "the queue already holds …" },
      headers: { "retry-after": "2615" },
    });
    const issue = { path: "repetitions", message: "this experiment would take about 20 h …" };
    const never = quotaExceeded({ kind: "never", message: issue.message, issue });
    expect(fromTrpcError(new TRPCError({ code: "UNPROCESSABLE_CONTENT", message: never.message, cause: never }))).toEqual({
      status: 422,
      body: { error: "quota_exceeded", message: issue.message, issues: [issue] },
    });
  });

  it("turns a validation failure into invalid_input with the per-field issues", () => {
    const zod = ZRunCreate.safeParse({ topology: { service: { replicas: 99 } }, workload: { endpoint: "hostname", vus: 1 } }).error;
    const { status, body } = fromTrpcError(new TRPCError({ code: "BAD_REQUEST", cause: zod }));
    expect(status).toBe(400);
    expect(body).toEqual({
      error: "invalid_input",
      message: "Input validation failed",
      issues: [{ path: "topology.service.replicas", message: "service.replicas must be between 1 and 16" }],
    });
    expect(ZRestError.parse(body)).toEqual(body);
  });

  it("passes on the issues of a host-bounds failure", () => {
    const issues = [{ path: "topology.service.cpus", message: "service.cpus must be between 0.05 and 2 (this host has 2 CPUs)" }];
    expect(fromTrpcError(new TRPCError({ code: "BAD_REQUEST", cause: invalidInput(issues) })).body).toEqual({
      error: "invalid_input",
      message: "Input validation failed",
      issues,
    });
  });

  it("names other errors in snake case and keeps their message", () => {
    const notFound = new TRPCError({ code: "NOT_FOUND", message: "run x not found", cause: new AppError("not_found", "run x not found") });
    expect(fromTrpcError(notFound)).toEqual({ status: 404, body: { error: "not_found", message: "run x not found" } });
    expect(fromTrpcError(new TRPCError({ code: "CONFLICT", message: "run x is already succeeded" }))).toEqual({
      status: 409,
      body: { error: "conflict", message: "run x is already succeeded" },
    });
    expect(fromTrpcError(new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "the run could not be queued" }))).toEqual({
      status: 503,
      body: { error: "unavailable", message: "the run could not be queued" },
    });
  });

  it("does not return the message of an unexpected error", () => {
    const db = new Error('invalid byte sequence for encoding "UTF8": 0x00');
    const { status, body } = fromTrpcError(new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: db.message, cause: db }));
    expect(status).toBe(500);
    expect(body).toEqual({ error: "internal", message: "Internal server error" });
    expect(fromTrpcError(new TRPCError({ code: "BAD_GATEWAY", message: "upstream 10.0.0.3:5432 refused" })).body).toEqual({
      error: "internal",
      message: "Internal server error",
    });
  });
});
