import { describe, expect, it } from "vitest";
import { checkRunForm, DEFAULT_FORM, toRunInput } from "./run-form";

describe("run form", () => {
  it("turns the defaults into a valid run (3 × 0.2 CPU, 256 MB, round robin, cpu, 3 VUs, 20 s)", () => {
    const checked = checkRunForm(DEFAULT_FORM);
    expect(checked.ok).toBe(true);
    expect(checked.input).toEqual({
      topology: {
        balancer: { kind: "nginx", algorithm: "round_robin" },
        service: { replicas: 3, cpus: 0.2, memoryMb: 256, threads: undefined, cpuIterations: 1000 },
      },
      workload: { endpoint: "cpu", vus: 3, arrivalRate: undefined, maxVus: undefined, durationSeconds: 20 },
    });
  });

  it("treats an empty CPU field as unlimited", () => {
    expect(toRunInput({ ...DEFAULT_FORM, cpus: " " }).topology.service.cpus).toBeUndefined();
  });

  it("sends the arrival rate, not the VUs, in the open model", () => {
    const w = toRunInput({ ...DEFAULT_FORM, model: "open", arrivalRate: "250", maxVus: "50" }).workload;
    expect(w).toMatchObject({ arrivalRate: 250, maxVus: 50, vus: undefined });
  });

  it("reports each bad field under its API path", () => {
    const checked = checkRunForm({ ...DEFAULT_FORM, replicas: "99", durationSeconds: "", vus: "1.5" });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.issues).toEqual({
      "topology.service.replicas": "service.replicas must be between 1 and 16",
      "workload.vus": "workload.vus must be a whole number between 1 and 1000",
    });
  });

  it("names a field that is not a number", () => {
    const checked = checkRunForm({ ...DEFAULT_FORM, memoryMb: "lots" });
    expect(checked.ok ? {} : checked.issues).toEqual({ "topology.service.memoryMb": "service.memoryMb must be a number" });
  });
});
