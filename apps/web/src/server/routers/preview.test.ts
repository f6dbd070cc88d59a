import { ZRunCreate } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { renderPreview, ZPreview } from "./preview";

const run = (body: unknown) => ZRunCreate.parse(body);

describe("renderPreview", () => {
  it("shows the balancer config and the k6 script the worker will write", () => {
    const { nginxConf, k6Script } = renderPreview(
      run({
        topology: { balancer: { algorithm: "least_conn" }, service: { replicas: 2 } },
        workload: { endpoint: "hostname", vus: 2, durationSeconds: 8 },
      }),
    );
    expect(nginxConf).toContain("least_conn;");
    expect(nginxConf).toContain("server app-1:");
    expect(nginxConf).not.toContain("server app-2:");
    expect(k6Script).toContain('"constant-vus"');
    expect(k6Script).toContain("/hostname");
  });

  it("lists the broker's and the store's files only when the run has them", () => {
    const plain = renderPreview(run({ topology: { service: {} }, workload: { endpoint: "cpu", vus: 1 } }));
    expect(plain.files.map((f) => f.title)).toEqual(["nginx.conf", "k6 script"]);

    const full = renderPreview(
      run({
        topology: {
          service: {},
          downstream: { mode: "async", replicas: 2 },
          broker: { memoryMb: 512 },
          storage: { kind: "cassandra", memoryMb: 1024 },
        },
        workload: { endpoint: "products", vus: 1 },
      }),
    );
    expect(full.files.map((f) => f.title).sort()).toEqual(["cassandra.yaml", "k6 script", "nginx.conf", "schema", "server.properties"]);
    // Two consumers get two partitions.
    expect(full.files.find((f) => f.title === "server.properties")?.content).toContain("num.partitions=2");
    expect(ZPreview.parse({ ...full, warnings: [] })).toEqual({ ...full, warnings: [] });
  });

  it("draws the async path through the broker to the consumers", () => {
    const { diagram } = renderPreview(
      run({ topology: { service: { replicas: 2 }, downstream: { mode: "async" } }, workload: { endpoint: "cpu", vus: 1 } }),
    );
    const roleOf = new Map(diagram.nodes.map((n) => [n.id, n.role]));
    const edges = diagram.edges.map((e) => `${roleOf.get(e.from)}→${roleOf.get(e.to)}:${e.kind}`);
    expect(new Set(edges)).toEqual(new Set(["loadgen→lb:http", "lb→app:http", "app→kafka:async", "kafka→consumer:async"]));
    expect(diagram.nodes.filter((n) => n.role === "app")).toHaveLength(2);
  });
});
