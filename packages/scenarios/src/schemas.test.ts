import { describe, expect, it } from "vitest";
import { ZRunCreate, ZWorkload, isTerminal } from "./schemas";

const contractBody = {
  name: "3 replicas",
  topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 3, cpus: 0.2, memoryMb: 256 } },
  workload: { endpoint: "cpu", vus: 3, durationSeconds: 20 },
};

function issuesOf(input: unknown) {
  const r = ZRunCreate.safeParse(input);
  if (r.success) return [];
  return r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

describe("ZRunCreate", () => {
  it("accepts the documented REST body and fills defaults", () => {
    const run = ZRunCreate.parse(contractBody);
    expect(run.topology.service).toEqual({ replicas: 3, cpus: 0.2, memoryMb: 256, cpuIterations: 1000 });
    expect(run.workload).toMatchObject({ endpoint: "cpu", vus: 3, durationSeconds: 20, requestTimeoutMs: 10_000, loadgenCpus: 1 });
  });

  it("treats an omitted cpus as no CPU limit and an omitted balancer as nginx round robin", () => {
    const run = ZRunCreate.parse({ topology: { service: { replicas: 1 } }, workload: { endpoint: "hostname", vus: 1 } });
    expect(run.topology.service.cpus).toBeUndefined();
    expect(run.topology.balancer).toEqual({ kind: "nginx", algorithm: "round_robin" });
  });

  it.each([
    [{ replicas: 0 }, "topology.service.replicas", "between 1 and 16"],
    [{ replicas: 17 }, "topology.service.replicas", "between 1 and 16"],
    [{ replicas: 2.5 }, "topology.service.replicas", "whole number"],
    [{ replicas: 1, cpus: 0.01 }, "topology.service.cpus", "between 0.05 and 64"],
    [{ replicas: 1, memoryMb: 8 }, "topology.service.memoryMb", "between 32 and 65536"],
  ])("rejects service %j naming %s and the range", (service, path, range) => {
    const issues = issuesOf({ ...contractBody, topology: { service } });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(path);
    expect(issues[0]!.message).toContain(range);
  });

  it("rejects an unknown algorithm and endpoint with the allowed values", () => {
    const issues = issuesOf({
      topology: { balancer: { kind: "nginx", algorithm: "random" }, service: { replicas: 1 } },
      workload: { endpoint: "products", vus: 1 },
    });
    expect(issues.map((i) => i.path).sort()).toEqual(["topology.balancer.algorithm", "workload.endpoint"]);
    expect(issues.find((i) => i.path === "workload.endpoint")!.message).toContain("hostname, cpu");
    expect(issues.find((i) => i.path === "topology.balancer.algorithm")!.message).toContain("round_robin, least_conn");
  });

  it("limits the name to 200 characters", () => {
    expect(issuesOf({ ...contractBody, name: "x".repeat(201) })[0]).toMatchObject({ path: "name" });
    expect(issuesOf({ ...contractBody, name: "x".repeat(200) })).toEqual([]);
  });
});

describe("ZWorkload", () => {
  it("needs exactly one of vus (closed) and arrivalRate (open)", () => {
    expect(ZWorkload.safeParse({ endpoint: "cpu" }).error?.issues[0]?.path).toEqual(["vus"]);
    expect(ZWorkload.safeParse({ endpoint: "cpu", vus: 2, arrivalRate: 10 }).error?.issues[0]?.path).toEqual(["arrivalRate"]);
    expect(ZWorkload.parse({ endpoint: "cpu", arrivalRate: 100, maxVus: 50 })).toMatchObject({ arrivalRate: 100, maxVus: 50 });
  });

  it("rejects maxVus in the closed model and a too-short duration", () => {
    const r = ZWorkload.safeParse({ endpoint: "cpu", vus: 2, maxVus: 10, durationSeconds: 1 });
    expect(r.error?.issues.map((i) => i.path.join(".")).sort()).toEqual(["durationSeconds", "maxVus"]);
  });
});

describe("isTerminal", () => {
  it("knows which statuses end a run", () => {
    expect(["queued", "running"].map((s) => isTerminal(s as never))).toEqual([false, false]);
    expect(["succeeded", "failed", "cancelled", "interrupted"].every((s) => isTerminal(s as never))).toBe(true);
  });
});
