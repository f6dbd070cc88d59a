import { describe, expect, it } from "vitest";
import { fieldInfo } from "./form";
import { ZRunCreate } from "./run";

describe("fieldInfo", () => {
  it("reads a whole number's range and default through the nested component schemas", () => {
    expect(fieldInfo(ZRunCreate, "topology.service.replicas")).toEqual({
      kind: "number",
      int: true,
      min: 1,
      max: 16,
      default: 1,
      optional: true,
    });
  });

  it("marks a fractional number without a default as optional", () => {
    expect(fieldInfo(ZRunCreate, "topology.service.cpus")).toEqual({ kind: "number", int: false, min: 0.05, max: 64, optional: true });
  });

  it("reads through a component that has a default object (balancer, storage)", () => {
    expect(fieldInfo(ZRunCreate, "topology.storage.memoryMb")).toMatchObject({ min: 128, default: 1024 });
    expect(fieldInfo(ZRunCreate, "topology.balancer.algorithm")).toEqual({
      kind: "enum",
      // Every kind's names: which ones a kind takes is checked by ZBalancer (and the form shows them per kind).
      options: ["round_robin", "least_conn", "ip_hash", "hash", "random", "roundrobin", "leastconn", "source", "first"],
      optional: true,
    });
  });

  it("reads an optional component (the broker) and required enums", () => {
    expect(fieldInfo(ZRunCreate, "topology.broker.memoryMb")).toMatchObject({ min: 384, default: 512 });
    expect(fieldInfo(ZRunCreate, "workload.loadgen")).toMatchObject({ kind: "enum", default: "k6" });
    expect(fieldInfo(ZRunCreate, "topology.service.kind")).toMatchObject({ kind: "enum" });
  });

  it("reads booleans", () => {
    expect(fieldInfo(ZRunCreate, "topology.balancer.retryNextUpstream")).toEqual({ kind: "boolean", optional: true });
  });

  it("reads text fields", () => {
    expect(fieldInfo(ZRunCreate, "name")).toEqual({ kind: "text", maxLength: 200, optional: true });
  });

  it("refuses a path the schema does not have", () => {
    expect(() => fieldInfo(ZRunCreate, "topology.service.replica")).toThrow("no field topology.service.replica");
    expect(() => fieldInfo(ZRunCreate, "topology.service.replicas.x")).toThrow();
  });
});
