import { describe, expect, it } from "vitest";
import { buildPlan } from "../plan/plan";
import { ZRunCreate, TRunCreateInput } from "../contract/run";
import { topologyDiagram } from "../plan/diagram";
import { encodeChannelMessage, parseChannelMessage } from "../contract/messages";
import { renderCassandraYaml } from "./cassandra";
import { jvmHeapMb } from "./jvm";
import { renderServerProperties } from "./kafka";
import { postgresSetup } from "./postgres";
import { productRow } from "./storage";

const images = { testbed: "t", nginx: "n", haproxy: "h", k6: "k", kafka: "kf", cassandra: "c", postgres: "p" };
const planOf = (run: TRunCreateInput) => buildPlan({ runId: "cm3x9k2abc0001", run: ZRunCreate.parse(run), images });

const props = (text: string) =>
  Object.fromEntries(
    text
      .split("\n")
      .filter((l) => l && !l.startsWith("#"))
      .map((l) => l.split("=") as [string, string]),
  );

describe("server.properties", () => {
  it("is a single-node KRaft broker whose every replication factor is 1", () => {
    const p = props(renderServerProperties({ partitions: 3 }));
    expect(p["process.roles"]).toBe("broker,controller");
    expect(p["num.partitions"]).toBe("3");
    for (const [k, v] of Object.entries(p)) if (/replication\.factor|min\.isr|insync/.test(k)) expect(v, k).toBe("1");
    expect(p["advertised.listeners"]).toBe("INTERNAL://kafka:29092");
    expect(Number(p["log.cleaner.dedupe.buffer.size"])).toBeLessThan(128 * 1024 * 1024);
  });

  it.each([0, 65, 1.5])("refuses %s partitions", (n) => {
    expect(() => renderServerProperties({ partitions: n })).toThrow(/partitions/);
  });

  it("gives the JVM half the container's memory, at least 128 MB", () => {
    expect([jvmHeapMb(512), jvmHeapMb(2048), jvmHeapMb(200)]).toEqual([256, 1024, 128]);
  });
});

describe("stores", () => {
  it("cassandra.yaml names its own host as the seed", () => {
    expect(renderCassandraYaml()).toMatch(/seeds: "db:7000"/);
    expect(renderCassandraYaml()).not.toMatch(/listen_address/);
    // Clients on every interface, told its own name's address.
    expect(renderCassandraYaml()).toMatch(/^rpc_address: 0\.0\.0\.0$/m);
    expect(renderCassandraYaml()).toMatch(/^broadcast_rpc_address: db$/m);
  });

  it("seeds products deterministically with the same prices in both stores", () => {
    expect(productRow(1)).toEqual([1, "product-1", "79.19"]);
    expect(postgresSetup(5).at(-1)).toContain("((i * 7919) % 100000) / 100.0");
    expect(() => postgresSetup(0)).toThrow();
  });
});

describe("topologyDiagram", () => {
  it("draws the request path with sync, async and query edges", () => {
    const d = topologyDiagram(
      planOf({
        topology: { service: { replicas: 2, cpus: 0.2 }, downstream: { mode: "async", replicas: 1 }, storage: { kind: "postgres" } },
        workload: { endpoint: "activity", vus: 1 },
      }),
    );
    expect(d.nodes.map((n) => n.role).sort()).toEqual(["app", "app", "consumer", "db", "kafka", "lb", "loadgen"]);
    const kinds = (k: string) => d.edges.filter((e) => e.kind === k).length;
    expect([kinds("http"), kinds("async"), kinds("query"), kinds("sync")]).toEqual([3, 3, 2, 0]);
    expect(d.nodes.find((n) => n.role === "app")!.limits).toBe("0.2 CPU · 256 MB");
    const xs = (role: string) => d.nodes.find((n) => n.role === role)!.x;
    expect(xs("loadgen") < xs("lb") && xs("lb") < xs("app") && xs("app") < xs("kafka") && xs("kafka") < xs("consumer")).toBe(true);
    for (const n of d.nodes) expect(n.x + 150).toBeLessThanOrEqual(d.width);
  });

  it("draws the load generator straight to the replicas without a balancer, closing up the balancer's column", () => {
    const d = topologyDiagram(
      planOf({ topology: { balancer: { kind: "none" }, service: { replicas: 3 } }, workload: { endpoint: "hostname", vus: 1 } }),
    );
    expect(d.nodes.map((n) => n.role).sort()).toEqual(["app", "app", "app", "loadgen"]);
    expect(d.edges).toHaveLength(3);
    for (const e of d.edges) expect(e).toMatchObject({ from: "sl-cm3x9k2a-loadgen-0", kind: "http" });
    expect(new Set(d.edges.map((e) => e.to)).size).toBe(3);
    const app = d.nodes.find((n) => n.role === "app")!;
    expect(app.x).toBe(12 + 150 + 56);
    expect(d.width).toBe(12 * 2 + 2 * 150 + 56);
  });

  it("draws an haproxy balancer box between the load generator and the replicas", () => {
    const d = topologyDiagram(
      planOf({ topology: { balancer: { kind: "haproxy" }, service: { replicas: 2 } }, workload: { endpoint: "hostname", vus: 1 } }),
    );
    const lb = d.nodes.find((n) => n.role === "lb")!;
    expect(lb.label).toBe("balancer");
    expect(d.edges.filter((e) => e.from === lb.id).map((e) => e.to)).toEqual(["sl-cm3x9k2a-app-0", "sl-cm3x9k2a-app-1"]);
    expect(d.edges.filter((e) => e.to === lb.id).map((e) => e.from)).toEqual(["sl-cm3x9k2a-loadgen-0"]);
  });

  it("groups the containers by node, one band per node in the engine's order, when they ran on several", () => {
    const plan = planOf({ topology: { service: { replicas: 3 } }, workload: { endpoint: "hostname", vus: 1 } });
    const at = (node: string) => (name: string) => [`sl-cm3x9k2a-${name}`, node] as const;
    const containerNodes = Object.fromEntries([
      ...["lb-0", "app-0", "loadgen-0"].map(at("node1")),
      at("node2")("app-1"),
      at("node3")("app-2"),
    ]);
    const nodes = [
      { name: "node1", cpus: 2 },
      { name: "node2", cpus: 4 },
      { name: "node3", cpus: 1 },
    ];
    const d = topologyDiagram(plan, { containerNodes, nodes });
    expect(d.groups?.map((g) => g.label)).toEqual(["node1 · 2 CPUs", "node2 · 4 CPUs", "node3 · 1 CPU"]);
    const [g1, g2, g3] = d.groups!;
    const inBand = (g: { y: number; height: number }) => d.nodes.filter((n) => n.y >= g.y && n.y + 52 <= g.y + g.height).map((n) => n.id);
    expect(inBand(g1!).sort()).toEqual(["sl-cm3x9k2a-app-0", "sl-cm3x9k2a-lb-0", "sl-cm3x9k2a-loadgen-0"]);
    expect(inBand(g2!)).toEqual(["sl-cm3x9k2a-app-1"]);
    expect(inBand(g3!)).toEqual(["sl-cm3x9k2a-app-2"]);
    // The replicas keep their column, and the edges are those of the ungrouped diagram.
    expect(new Set(d.nodes.filter((n) => n.role === "app").map((n) => n.x)).size).toBe(1);
    expect(d.edges).toEqual(topologyDiagram(plan).edges);
    expect(g3!.y + g3!.height).toBeLessThanOrEqual(d.height);
    // On one node nothing is grouped.
    const one = Object.fromEntries(Object.keys(containerNodes).map((k) => [k, "local"]));
    expect(topologyDiagram(plan, { containerNodes: one, nodes: [{ name: "local", cpus: 2 }] })).toEqual(topologyDiagram(plan));
  });
});

describe("channel messages", () => {
  it("round-trips a figures message and refuses a malformed one at the publisher", () => {
    const wire = encodeChannelMessage({ type: "figures", t: 3, figures: { "broker.lag": 12 } });
    expect(parseChannelMessage(wire)).toEqual({ type: "figures", t: 3, figures: { "broker.lag": 12 } });
    expect(() => encodeChannelMessage({ type: "figures", t: 1.5, figures: {} })).toThrow();
    expect(parseChannelMessage('{"type":"sample"}')).toBeNull();
    expect(parseChannelMessage("not json")).toBeNull();
  });
});

describe("explicitBalancer", () => {
  it("writes out the kind's defaults, so a stored run names its algorithm, and parses back unchanged", async () => {
    const { explicitBalancer, ZBalancer } = await import("./balancer/config");
    const nginx = explicitBalancer(ZBalancer.parse({}));
    expect(nginx).toEqual({ kind: "nginx", algorithm: "round_robin", maxFails: 1, failTimeoutSeconds: 10, retryNextUpstream: true });
    expect(ZBalancer.parse(nginx)).toEqual(nginx);
    expect(explicitBalancer(ZBalancer.parse({ kind: "haproxy", cpus: 1 }))).toMatchObject({
      kind: "haproxy",
      algorithm: "roundrobin",
      cpus: 1,
    });
    expect(explicitBalancer(ZBalancer.parse({ kind: "none" }))).toEqual({ kind: "none" });
  });
});

describe("load generators", () => {
  it("splits VUs, rates and connections over the instances, the larger shares first", async () => {
    const { instanceWorkload, share } = await import("../loadgen/component");
    const { ZWorkload } = await import("../contract/workload");
    expect([0, 1, 2].map((i) => share(10, 3, i))).toEqual([4, 3, 3]);
    const w = ZWorkload.parse({ loadgen: "wrk", connections: 101, loadgenInstances: 2 });
    expect([0, 1].map((i) => instanceWorkload(w, i).connections)).toEqual([51, 50]);
    const open = ZWorkload.parse({ arrivalRate: 9, maxVus: 5, loadgenInstances: 2 });
    expect([0, 1].map((i) => [instanceWorkload(open, i).arrivalRate, instanceWorkload(open, i).maxVus])).toEqual([
      [5, 3],
      [4, 2],
    ]);
  });

  it("plans one container per instance with its share, wrk with its generated script", async () => {
    const { buildPlan } = await import("../plan/plan");
    const { ZRunCreate } = await import("../contract/run");
    const images = { testbed: "t", nginx: "n", wrk: "w" };
    const run = ZRunCreate.parse({
      topology: { service: { replicas: 2 } },
      workload: { loadgen: "wrk", connections: 30, loadgenInstances: 3, loadgenCpus: 2 },
    });
    const p = buildPlan({ runId: "cm3x9k2a0000", run, images });
    expect(p.loadgens.map((c) => c.name)).toEqual(["sl-cm3x9k2a-loadgen-0", "sl-cm3x9k2a-loadgen-1", "sl-cm3x9k2a-loadgen-2"]);
    // Two threads (one per CPU), ten connections each, aimed at the balancer.
    expect(p.loadgens[0]!.cmd).toEqual(expect.arrayContaining(["-t2", "-c10", "http://lb:8080/hostname"]));
    expect(p.loadgens[0]!.files[0]!.content).toContain('wrk.method = "GET"');
  });

  it("counts wrk's failed connections as failed requests in the summary", async () => {
    const { wrkTotals } = await import("../loadgen/component");
    const latencyMs = { avg: 1, p50: 1, p90: 2, p95: 2, p99: 3, max: 9 };
    const s = wrkTotals(
      {
        durationMs: 10_050,
        requests: 990,
        errors: 15,
        errorsByKind: { connect: 10, read: 0, write: 0, status: 5, timeout: 0 },
        latencyMs,
        backends: { "app-0": 990 },
      },
      10,
    );
    expect(s).toMatchObject({ requests: 1000, rps: 100, errors: 15, errorRate: 0.015, latencyMs, backends: { "app-0": 990 } });
  });
});
