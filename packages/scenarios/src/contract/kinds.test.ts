import { describe, expect, it } from "vitest";
import { ALGORITHMS_BY_KIND, BALANCER_KINDS } from "../components/balancer/config";
import { KIND_FIELDS, kindDefaults } from "./kinds";
import { ZRunCreate } from "./run";

describe("kindDefaults", () => {
  it("lists every slot's kind and the load generator", () => {
    expect([...KIND_FIELDS].sort()).toEqual(
      [
        "topology.balancer.kind",
        "topology.broker.kind",
        "topology.cache.kind",
        "topology.service.kind",
        "topology.storage.kind",
        "workload.loadgen",
      ].sort(),
    );
  });

  it("gives each balancer kind its own algorithm and the health knobs; none gets none of them", () => {
    expect(kindDefaults("topology.balancer.kind", "haproxy")).toEqual({
      kind: "haproxy",
      algorithm: "roundrobin",
      maxFails: 1,
      failTimeoutSeconds: 10,
      retryNextUpstream: true,
    });
    expect(kindDefaults("topology.balancer.kind", "nginx")).toMatchObject({ kind: "nginx", algorithm: "round_robin" });
    expect(kindDefaults("topology.balancer.kind", "none")).toEqual({ kind: "none" });
    for (const kind of BALANCER_KINDS) {
      const b = kindDefaults("topology.balancer.kind", kind);
      if (kind !== "none") expect(ALGORITHMS_BY_KIND[kind]).toContain(b.algorithm);
    }
  });

  it("is a valid slot for every kind (a user's image only lacks its image)", () => {
    const service = { kind: "testbed" };
    const workload = { vus: 2, durationSeconds: 5 };
    const cases: [string, string, (v: Record<string, unknown>) => Record<string, unknown>][] = [
      ["topology.balancer.kind", "haproxy", (b) => ({ topology: { service, balancer: b }, workload })],
      ["topology.storage.kind", "cassandra", (s) => ({ topology: { service, storage: s }, workload })],
      ["topology.broker.kind", "rabbitmq", (b) => ({ topology: { service, downstream: { mode: "async" }, broker: b }, workload })],
      ["topology.service.kind", "rails", (s) => ({ topology: { service: s }, workload: { ...workload, endpoint: "key" } })],
      [
        "topology.service.kind",
        "image",
        (s) => ({ topology: { service: { ...s, image: "app:1" } }, workload: { ...workload, request: { path: "/" } } }),
      ],
      [
        "topology.cache.kind",
        "redis",
        (c) => ({ topology: { service: { kind: "image", image: "app:1" }, cache: c }, workload: { ...workload, request: { path: "/" } } }),
      ],
      ["workload.loadgen", "wrk", (w) => ({ topology: { service }, workload: { ...w, connections: 10, durationSeconds: 5 } })],
    ];
    for (const [path, kind, body] of cases) {
      const run = ZRunCreate.safeParse(body(kindDefaults(path, kind)));
      expect(run.error?.issues ?? [], `${path} = ${kind}`).toEqual([]);
    }
  });

  it("refuses what is not a kind field or not a kind", () => {
    expect(() => kindDefaults("topology.service.replicas", "3")).toThrow(/not a kind field/);
    expect(() => kindDefaults("topology.balancer.kind", "traefik")).toThrow(/traefik is not a value of topology.balancer.kind/);
  });
});
