import { describe, expect, it } from "vitest";
import { validateAgainstHost } from "./host";
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
