import { describe, expect, it } from "vitest";
import { hostMax, validateAgainstHost } from "./host";
import { ZRunCreate } from "./run";

const host = { cpus: 2, memoryBytes: 8 * 1024 ** 3 };
const run = (service: object, workload: object = {}) =>
  ZRunCreate.parse({ topology: { service }, workload: { endpoint: "cpu", vus: 1, ...workload } });

describe("validateAgainstHost", () => {
  it("accepts a run that fits", () => {
    expect(validateAgainstHost(run({ replicas: 3, cpus: 0.2, memoryMb: 256 }), host)).toEqual([]);
  });

  it("refuses more CPUs per replica than the host has, naming the range", () => {
    const [issue] = validateAgainstHost(run({ replicas: 1, cpus: 3 }), host);
    expect(issue).toEqual({ path: "topology.service.cpus", message: expect.stringContaining("between 0.05 and 2") });
  });

  it("refuses a load generator larger than the host", () => {
    expect(validateAgainstHost(run({ replicas: 1 }, { loadgenCpus: 4 }), host)[0]?.path).toBe("workload.loadgenCpus");
  });

  it("refuses replicas whose memory together exceeds three quarters of the host", () => {
    const [issue] = validateAgainstHost(run({ replicas: 16, memoryMb: 4096 }), host);
    expect(issue?.path).toBe("topology.service.memoryMb");
    expect(issue?.message).toContain("between 32 and 384 for 16 replica(s)");
  });
});

describe("hostMax", () => {
  it("bounds every CPU limit and the load generator's CPU by the host's CPUs", () => {
    for (const path of ["topology.service.cpus", "topology.balancer.cpus", "topology.storage.cpus", "workload.loadgenCpus"]) {
      expect(hostMax(path, host), path).toBe(2);
    }
  });

  it("gives the service's memory per replica the largest value validateAgainstHost accepts", () => {
    const r = run({ replicas: 16, memoryMb: 256 });
    const max = hostMax("topology.service.memoryMb", host, r)!;
    expect(max).toBe(384);
    expect(validateAgainstHost(run({ replicas: 16, memoryMb: max }), host)).toEqual([]);
    expect(validateAgainstHost(run({ replicas: 16, memoryMb: max + 1 }), host)).toHaveLength(1);
  });

  it("leaves fields the host does not bound to the schema", () => {
    expect(hostMax("topology.service.replicas", host)).toBeUndefined();
    expect(hostMax("workload.vus", host)).toBeUndefined();
    // Without the run, memory is bounded by the whole budget (three quarters of 8 GiB).
    expect(hostMax("topology.storage.memoryMb", host)).toBe(6144);
  });
});
