import { ZRunCreate } from "@scalelab/scenarios/schemas";
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
    expect(issuesOf({ workload: { endpoint: "cpu", vus: 1 } })).toEqual([{ path: "topology", message: "topology is required" }]);
  });

  it("reads Standard Schema path segments given as objects", () => {
    expect(toFieldIssues([{ path: [{ key: "workload" }, { key: "vus" }], message: "bad" }])).toEqual([{ path: "workload.vus", message: "bad" }]);
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
