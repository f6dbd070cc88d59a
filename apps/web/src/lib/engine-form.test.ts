import type { TEngineView } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { engineBounds, engineOptionLabel, pinnableRoles } from "./engine-form";
import { DEFAULT_FORM, toRunInput, type RunFormValues } from "./run-form";
import { formFromRun } from "./run-form-copy";

const GB = 1024 ** 3;
const node = (name: string, cpus: number, availability = "active") => ({
  name,
  role: "worker" as const,
  cpus,
  memoryBytes: cpus * GB,
  state: "ready",
  availability,
  address: "10.0.0.1",
});
const swarm: TEngineView = {
  name: "swarm-local",
  kind: "swarm",
  reachable: true,
  error: null,
  cpus: 14,
  memoryBytes: 14 * GB,
  nodes: [node("node1", 2), node("node2", 4), node("node3", 8, "drain")],
};
const local: TEngineView = { ...swarm, name: "local", kind: "docker", cpus: 2, memoryBytes: 8 * GB, nodes: [node("local", 2)] };

describe("the form's engine", () => {
  it("names each engine with its nodes and CPUs, or why it is unreachable", () => {
    expect(engineOptionLabel(local)).toBe("local — this host, 2 CPUs, 8 GiB");
    expect(engineOptionLabel(swarm)).toBe("swarm-local — 3 nodes: node1 2 CPUs, node2 4 CPUs, node3 8 CPUs (drain, ready)");
    expect(engineOptionLabel({ ...swarm, reachable: false, error: "connect ECONNREFUSED", nodes: [] })).toBe(
      "swarm-local — unreachable: connect ECONNREFUSED",
    );
  });

  it("bounds the hints by the host on local, by the largest node that takes containers elsewhere", () => {
    expect(engineBounds([local, swarm], "local", { cpus: 2, memoryBytes: GB })).toEqual({ cpus: 2, memoryBytes: GB });
    expect(engineBounds([local, swarm], "swarm-local", undefined)).toEqual({ cpus: 4, memoryBytes: 4 * GB });
    expect(engineBounds([local], "gone", undefined)).toBeUndefined();
  });

  it("offers a pin for each role of the run on screen", () => {
    expect(pinnableRoles(toRunInput(DEFAULT_FORM))).toEqual(["app", "lb", "loadgen"]);
  });

  it("sends neither engine nor placement on local, and only the pinned roles elsewhere", () => {
    const v: RunFormValues = structuredClone(DEFAULT_FORM);
    v.topology.placement = { strategy: "pack", pin: { app: "node2", lb: "" }, loadgen: { separate: true } };
    const onLocal = toRunInput(v);
    expect(onLocal).not.toHaveProperty("engine");
    expect(onLocal.topology).not.toHaveProperty("placement");
    v.engine = "swarm-local";
    const remote = toRunInput(v);
    expect(remote.engine).toBe("swarm-local");
    expect(remote.topology.placement).toEqual({ strategy: "pack", pin: { app: "node2" }, loadgen: { separate: true } });
    v.topology.placement.pin = { app: "node2", db: "node3" };
    // No store in this run: its pin is not sent.
    expect(toRunInput(v).topology.placement?.pin).toEqual({ app: "node2" });
    v.topology.placement.pin = { app: "" };
    expect(toRunInput(v).topology.placement).toEqual({ strategy: "pack", loadgen: { separate: true } });
  });

  it("a copied run keeps its engine and placement", () => {
    const body = { engine: "swarm-local", topology: { service: {}, placement: { pin: { app: "node1" } } }, workload: { vus: 1 } };
    const v = formFromRun(body);
    expect(v.engine).toBe("swarm-local");
    expect(v.topology.placement).toEqual({ strategy: "spread", pin: { app: "node1" }, loadgen: { separate: false } });
    expect(toRunInput(v).topology.placement).toEqual({ strategy: "spread", pin: { app: "node1" }, loadgen: { separate: false } });
  });
});
