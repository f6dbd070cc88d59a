import { ZRunCreate } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { AppError, fieldIssuesOf, invalidInput } from "./errors";

describe("fieldIssuesOf", () => {
  it("flattens a ZodError into path and message per field", () => {
    const r = ZRunCreate.safeParse({ topology: { service: { replicas: 0, cpus: 100 } }, workload: { endpoint: "cpu", vus: 1 } });
    expect(fieldIssuesOf(r.error)).toEqual([
      { path: "topology.service.replicas", message: "service.replicas must be between 1 and 16" },
      { path: "topology.service.cpus", message: "service.cpus must be between 0.05 and 64" },
    ]);
  });

  it("passes on the issues of a host-bounds failure", () => {
    const issues = [{ path: "topology.service.cpus", message: "service.cpus must be between 0.05 and 2 (this host has 2 CPUs)" }];
    expect(fieldIssuesOf(invalidInput(issues))).toEqual(issues);
  });

  it("is null for errors that are not about input", () => {
    expect(fieldIssuesOf(new AppError("not_found", "run x not found"))).toBeNull();
    expect(fieldIssuesOf(new Error("boom"))).toBeNull();
    expect(fieldIssuesOf(undefined)).toBeNull();
  });
});
