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

  it("on an engine's nodes draws where placement puts each container, one band per node", () => {
    const nodes = ["node1", "node2", "node3"].map((name) => ({ name, cpus: 2, memoryBytes: 4 * 1024 ** 3, availability: "active" }));
    const body = { engine: "swarm-local", topology: { service: { replicas: 3 } }, workload: { endpoint: "cpu", vus: 1 } };
    const { diagram } = renderPreview(run(body), nodes);
    expect(diagram.groups?.map((g) => g.name)).toEqual(["node1", "node2", "node3"]);
    const band = (id: string) =>
      diagram.groups!.find((g) => {
        const n = diagram.nodes.find((x) => x.id.endsWith(id))!;
        return n.y >= g.y && n.y < g.y + g.height;
      })!.name;
    expect(["app-0", "app-1", "app-2"].map(band)).toEqual(["node1", "node2", "node3"]);
    // A placement that cannot be met draws no bands (creating the run names the field).
    const pinned = renderPreview(run({ ...body, topology: { ...body.topology, placement: { pin: { app: "node9" } } } }), nodes);
    expect(pinned.diagram.groups).toBeUndefined();
    expect(renderPreview(run(body), null).diagram.groups).toBeUndefined();
    expect(ZPreview.parse({ ...renderPreview(run(body), nodes), warnings: [] }).diagram.groups).toHaveLength(3);
  });
});
