import { describe, expect, it } from "vitest";
import { checkEngineNodes, engineClientOptions, engineConnection, ZEngineConfig, ZEngineRef, TEngineNode } from "./engines";
import { nodesMax, nodeWarnings, validateAgainstHost, validateAgainstNodes } from "./host";
import { ZRunCreate } from "./run";

const GB = 1024 ** 3;
const config = {
  name: "swarm-local",
  kind: "swarm",
  manager: "tcp://10.0.0.2:2375",
  nodes: [
    { name: "node1", endpoint: "tcp://10.0.0.2:2375" },
    { name: "node2", endpoint: "tcp://node2.lab:2375" },
  ],
  tlsDir: null,
  registry: { push: "127.0.0.1:5000", pull: "registry:5000" },
};
const messages = (v: unknown) => {
  const r = ZEngineConfig.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("ZEngineConfig", () => {
  it("accepts a Swarm cluster's config", () => {
    expect(messages(config)).toEqual([]);
    expect(messages({ ...config, manager: "unix:///var/run/docker.sock", tlsDir: "/etc/lab/tls" })).toEqual([]);
    expect(messages({ ...config, registry: null, manager: "tcp://[fd00::2]:2376" })).toEqual([]);
    // A config stored before `machines` was reads as auto.
    expect(ZEngineConfig.parse(config).machines).toBe("auto");
    expect(ZEngineConfig.parse({ ...config, machines: "separate" }).machines).toBe("separate");
  });

  it("names the field and the rule of a bad value", () => {
    expect(messages({ ...config, name: "local" })).toEqual(['name: name must not be "local": that is the lab\'s own engine']);
    expect(messages({ ...config, name: "Swarm" })[0]).toMatch(/^name: name must be 1–40 characters: a lowercase letter/);
    expect(messages({ ...config, manager: "http://10.0.0.2:2375" })).toEqual([
      "manager: manager must be a Docker endpoint tcp://HOST:PORT (port 1–65535) or unix:///absolute/path.sock",
    ]);
    expect(messages({ ...config, manager: "tcp://10.0.0.2:70000" })[0]).toMatch(/^manager: /);
    expect(messages({ ...config, machines: "many" })).toEqual(["machines: machines must be one of auto, shared, separate"]);
    expect(messages({ ...config, manager: "tcp://a;rm -rf:2375" })[0]).toMatch(/^manager: /);
    expect(messages({ ...config, nodes: [{ name: "node 1", endpoint: "tcp://h:1" }] })[0]).toMatch(
      /^nodes.0.name: nodes\[\].name must be a node's hostname/,
    );
    expect(messages({ ...config, nodes: [] })[0]).toMatch(/^nodes: nodes must list 1–64 nodes/);
    expect(messages({ ...config, nodes: [config.nodes[0], config.nodes[0]] })).toEqual([
      "nodes.1.name: nodes[].name node1 is listed twice",
    ]);
    expect(messages({ ...config, tlsDir: "certs" })[0]).toMatch(/^tlsDir: tlsDir must be an absolute path/);
    expect(messages({ ...config, registry: { push: "127.0.0.1", pull: "registry:5000" } })[0]).toMatch(
      /^registry.push: registry.push must be HOST:PORT/,
    );
    expect(messages({ ...config, extra: 1 })[0]).toMatch(/unknown field extra/);
  });

  it("a run's engine is local by default, and named by the same rule", () => {
    const run = ZRunCreate.parse({ topology: { service: {} }, workload: { vus: 1 } });
    expect(run.engine).toBe("local");
    expect(ZEngineRef.safeParse("swarm-local").success).toBe(true);
    const bad = ZRunCreate.safeParse({ engine: "../etc", topology: { service: {} }, workload: { vus: 1 } });
    expect(!bad.success && bad.error.issues[0]).toMatchObject({
      path: ["engine"],
      message: expect.stringMatching(/^engine must be "local" or an engine's name/),
    });
  });
});

describe("topology.placement", () => {
  const parse = (placement: unknown, service: object = { replicas: 2 }) =>
    ZRunCreate.safeParse({ topology: { service, placement }, workload: { vus: 1 } });
  it("defaults to spread and takes pins by role", () => {
    const r = parse({ pin: { app: "node1" }, loadgen: { separate: true } });
    expect(r.success && r.data.topology.placement).toEqual({ strategy: "spread", pin: { app: "node1" }, loadgen: { separate: true } });
  });
  it("refuses an unknown strategy, a role the run lacks and a bad node name", () => {
    const issues = (p: unknown) => {
      const r = parse(p);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(issues({ strategy: "random" })).toEqual(["topology.placement.strategy must be one of: spread, pack"]);
    expect(issues({ pin: { kafka: "node1" } })[0]).toMatch(/^topology.placement.pin.kafka: this run has no role kafka \(its roles: .*app/);
    expect(issues({ pin: { app: "node 1" } })[0]).toMatch(/node's hostname/);
  });
});

const node = (name: string, cpus: number, memoryGb = 4): TEngineNode => ({
  name,
  cpus,
  memoryBytes: memoryGb * GB,
  availability: "active",
  state: "ready",
});
const run = (topology: object, workload: object = {}) =>
  ZRunCreate.parse({ engine: "swarm-local", topology: { service: { replicas: 3 }, ...topology }, workload: { vus: 1, ...workload } });

describe("validateAgainstNodes", () => {
  const nodes = [node("node-1", 4), node("node-2", 2), node("node-3", 4)];
  it("accepts a run whose containers fit their nodes", () => {
    expect(validateAgainstNodes(run({ service: { replicas: 3, cpus: 1.5 } }), nodes)).toEqual([]);
  });
  it("a container's CPUs must fit the node it is placed on", () => {
    expect(validateAgainstNodes(run({ service: { replicas: 3, cpus: 3 } }), nodes)).toEqual([
      { path: "topology.service.cpus", message: "service.cpus must be between 0.05 and 2 (node node-2 has 2 CPUs)" },
    ]);
    // Pinned to the big nodes, it fits.
    expect(validateAgainstNodes(run({ service: { replicas: 1, cpus: 3 }, placement: { pin: { app: "node-3" } } }), nodes)).toEqual([]);
    expect(validateAgainstNodes(run({ service: { replicas: 1 } }, { loadgenCpus: 3 }), [node("a", 2)])).toEqual([
      { path: "workload.loadgenCpus", message: "workload.loadgenCpus must be between 0.1 and 2 (node a has 2 CPUs)" },
    ]);
  });
  it("the memory of the containers on a node must fit three quarters of it", () => {
    const [issue] = validateAgainstNodes(run({ service: { replicas: 4, memoryMb: 2048 }, placement: { strategy: "pack" } }), [
      node("a", 8),
      node("b", 8),
    ]);
    expect(issue).toEqual({
      path: "topology.service.memoryMb",
      message:
        "service.memoryMb must be between 32 and 1536 for 2 replica(s) on it (node a has 4096 MB; the containers placed on it may use at most 3072 MB together)",
    });
  });
  it("passes placement's issues on: a pinned node that is not there, no node for separate generators", () => {
    expect(validateAgainstNodes(run({ placement: { pin: { app: "node-9" } } }), nodes)[0]?.path).toBe("topology.placement.pin.app");
    expect(validateAgainstNodes(run({ placement: { loadgen: { separate: true } } }), nodes)[0]?.path).toBe(
      "topology.placement.loadgen.separate",
    );
  });
  it("nodesMax hints the largest node's bounds; nodeWarnings names the oversubscribed node", () => {
    expect(nodesMax("topology.service.cpus", nodes)).toBe(4);
    expect(nodesMax("topology.service.cpus", [{ ...node("x", 8), availability: "drain" }, node("y", 2)])).toBe(2);
    const warnings = nodeWarnings(run({ service: { replicas: 3, cpus: 2 }, placement: { pin: { app: "node-2" } } }), nodes);
    expect(warnings).toEqual([
      { code: "cpu_oversubscribed", message: expect.stringMatching(/placed on node node-2 add up to 6 cores on its 2 cores/) },
    ]);
  });
});

describe("placement on the lab's own engine", () => {
  const host = { cpus: 2, memoryBytes: 8 * GB };
  const local = (placement: object) => ZRunCreate.parse({ topology: { service: { replicas: 2 }, placement }, workload: { vus: 1 } });
  it("everything is on its one node local: spread and pack fit, a pin elsewhere or separate generators do not", () => {
    expect(validateAgainstHost(local({ strategy: "pack" }), host)).toEqual([]);
    expect(validateAgainstHost(local({ pin: { app: "local" } }), host)).toEqual([]);
    expect(validateAgainstHost(local({ pin: { app: "node2" } }), host)).toEqual([
      {
        path: "topology.placement.pin.app",
        message: "topology.placement.pin.app: node node2 is not a node of this engine (its nodes: local)",
      },
    ]);
    expect(validateAgainstHost(local({ loadgen: { separate: true } }), host)[0]?.path).toBe("topology.placement.loadgen.separate");
  });
});

describe("engineConnection", () => {
  it("a socket, a host and port (an IPv6 address unbracketed), over TLS with the directory's files", () => {
    expect(engineConnection("unix:///var/run/docker.sock", null)).toEqual({ socketPath: "/var/run/docker.sock" });
    expect(engineConnection("tcp://10.0.0.2:2375", null)).toEqual({ protocol: "http", host: "10.0.0.2", port: 2375 });
    expect(engineConnection("tcp://[fd00::2]:2376", "/etc/lab/tls/")).toEqual({
      protocol: "https",
      host: "fd00::2",
      port: 2376,
      tlsFiles: { ca: "/etc/lab/tls/ca.pem", cert: "/etc/lab/tls/cert.pem", key: "/etc/lab/tls/key.pem" },
    });
    expect(engineConnection("tcp://node2.lab:2375", null)).toMatchObject({ host: "node2.lab" });
  });

  it("as a client's options, the TLS files read by the caller's reader", () => {
    expect(engineClientOptions("tcp://10.0.0.2:2375", null, () => "never")).toEqual({ protocol: "http", host: "10.0.0.2", port: 2375 });
    expect(engineClientOptions("tcp://10.0.0.2:2376", "/tls", (p) => `read ${p}`)).toEqual({
      protocol: "https",
      host: "10.0.0.2",
      port: 2376,
      ca: "read /tls/ca.pem",
      cert: "read /tls/cert.pem",
      key: "read /tls/key.pem",
    });
  });

  it("refuses what the contract refuses, naming the endpoint", () => {
    for (const bad of ["http://10.0.0.2:2375", "tcp://10.0.0.2:70000", "tcp://10.0.0.2", "unix://relative.sock"]) {
      expect(() => engineConnection(bad, null)).toThrow(`engine endpoint ${JSON.stringify(bad)} is not tcp://host:port or unix:///path`);
    }
  });
});

describe("checkEngineNodes", () => {
  const swarm = [
    { id: "id1", hostname: "node1" },
    { id: "id2", hostname: "node2" },
    { id: "id3", hostname: "node3" },
  ];
  const nodes = [
    { name: "node1", endpoint: "tcp://10.0.0.2:2375" },
    { name: "node2", endpoint: "tcp://10.0.0.3:2375" },
  ];
  const manager = "tcp://10.0.0.2:2375";

  it("each node's engine is its own: no error; a node with no endpoint is said to take no containers", () => {
    const ids = new Map([
      ["node1", { nodeId: "id1", name: "node1" }],
      ["node2", { nodeId: "id2", name: "node2" }],
    ]);
    expect(checkEngineNodes({ manager, nodes }, swarm, ids)).toEqual({
      errors: [],
      warnings: ["node node3 of the swarm has no --node endpoint: no run's containers are placed there"],
    });
    expect(checkEngineNodes({ manager, nodes }, swarm.slice(0, 2), ids)).toEqual({ errors: [], warnings: [] });
  });

  it("a name the swarm does not have, an endpoint of another node or of no swarm: errors naming the option", () => {
    const r = checkEngineNodes(
      {
        manager,
        nodes: [...nodes, { name: "nodee4", endpoint: "tcp://10.0.0.9:2375" }, { name: "node3", endpoint: "tcp://10.0.0.8:2375" }],
      },
      swarm,
      new Map([
        ["node1", { nodeId: "id2", name: "node2" }],
        ["node2", { nodeId: "", name: "laptop" }],
        ["node3", { nodeId: "other", name: "far" }],
      ]),
    );
    expect(r.errors).toEqual([
      "--node node1=tcp://10.0.0.2:2375: that engine is node node2's, not node1's",
      "--node node2=tcp://10.0.0.3:2375: that engine (laptop) is in no swarm, not node node2's",
      "--node nodee4: the swarm of tcp://10.0.0.2:2375 has no node of that name (its nodes: node1, node2, node3)",
      "--node node3=tcp://10.0.0.8:2375: that engine is another swarm's node (far), not node3's",
    ]);
    expect(r.warnings).toEqual([]);
  });

  it("a node's engine that does not answer is a warning, not an error: the config is saved", () => {
    const r = checkEngineNodes({ manager, nodes }, swarm.slice(0, 2), new Map([["node2", { error: "connect ETIMEDOUT" }]]));
    expect(r).toEqual({
      errors: [],
      warnings: [
        "--node node2: its engine tcp://10.0.0.3:2375 did not answer (connect ETIMEDOUT): runs placed on node2 fail until it does",
      ],
    });
  });
});
