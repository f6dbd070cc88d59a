import { ZRunCreate } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { issuesByPath, toFieldIssues } from "./issues";

const issuesOf = (input: unknown) => {
  const r = ZRunCreate.safeParse(input);
  if (r.success) throw new Error("expected a validation failure");
  return toFieldIssues(r.error.issues);
};

describe("toFieldIssues", () => {
  it("names each field by its full path with the allowed range", () => {
    expect(issuesOf({ topology: { service: { replicas: 99 } }, workload: { endpoint: "cpu", vus: 2 } })).toEqual([
      { path: "topology.service.replicas", message: "service.replicas must be between 1 and 16" },
    ]);
  });

  it("says a missing field is required instead of Zod's type wording", () => {
    expect(toFieldIssues([{ path: ["topology"], message: "Invalid input: expected object, received undefined" }])).toEqual([
      { path: "topology", message: "topology is required" },
    ]);
  });

  it("keeps the schema's own wording for a missing component", () => {
    expect(issuesOf({ workload: { endpoint: "cpu", vus: 1 } })).toEqual([{ path: "topology", message: "topology must be an object" }]);
  });

  it("reads Standard Schema path segments given as objects", () => {
    expect(toFieldIssues([{ path: [{ key: "workload" }, { key: "vus" }], message: "bad" }])).toEqual([
      { path: "workload.vus", message: "bad" },
    ]);
  });
});

describe("issuesByPath", () => {
  it("keeps the first message of each path", () => {
    expect(
      issuesByPath([
        { path: "a", message: "first" },
        { path: "a", message: "second" },
        { path: "b", message: "other" },
      ]),
    ).toEqual({ a: "first", b: "other" });
  });
});

describe("unknown fields", () => {
  it("puts an unknown field's issue at the field's own path", () => {
    const issues = issuesOf({ topology: { service: { replicas: 1, replica: 3 } }, workload: { endpoint: "cpu", vus: 1 } });
    expect(issues).toEqual([{ path: "topology.service.replica", message: expect.stringContaining("unknown field service.replica") }]);
  });

  it("gives each unknown field of one object its own issue", () => {
    const issues = issuesOf({ topology: { service: {} }, workload: { endpoint: "cpu", vus: 1, users: 5, ramp: 2 } });
    expect(issues.map((i) => i.path)).toEqual(["workload.users", "workload.ramp"]);
  });

  it("names unknown top-level fields without a leading dot", () => {
    expect(issuesOf({ topology: { service: {} }, workload: { endpoint: "cpu", vus: 1 }, extra: true }).map((i) => i.path)).toEqual([
      "extra",
    ]);
  });
});
