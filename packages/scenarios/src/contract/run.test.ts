import { isTerminal } from "./status";
import { ZWorkload } from "./workload";
import { ZBalancer, balancerLabel, balancerSettings } from "../components/balancer/config";
import { describe, expect, it } from "vitest";
import { ZRunCreate } from "./run";

const contractBody = {
  name: "3 replicas",
  topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 3, cpus: 0.2, memoryMb: 256 } },
  workload: { endpoint: "cpu", vus: 3, durationSeconds: 20 },
};

function issuesOf(input: unknown) {
  const r = ZRunCreate.safeParse(input);
  if (r.success) return [];
  return r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

describe("ZRunCreate", () => {
  it("accepts the documented REST body and fills defaults", () => {
    const run = ZRunCreate.parse(contractBody);
    expect(run.topology.service).toEqual({
      kind: "testbed",
      replicas: 3,
      cpus: 0.2,
      memoryMb: 256,
      cpuIterations: 1000,
      workerPool: 0,
      queueLimit: 0,
      logging: "none",
      logFlushMs: 0,
    });
    expect(run.topology.downstream.mode).toBe("none");
    expect(run.topology.storage.kind).toBe("none");
    expect(run.topology.broker).toBeUndefined();
    expect(run.workload).toMatchObject({ endpoint: "cpu", vus: 3, durationSeconds: 20, requestTimeoutMs: 10_000, loadgenCpus: 1 });
  });

  it("treats an omitted cpus as no CPU limit and an omitted balancer as nginx round robin", () => {
    const run = ZRunCreate.parse({ topology: { service: { replicas: 1 } }, workload: { endpoint: "hostname", vus: 1 } });
    expect(run.topology.service.cpus).toBeUndefined();
    // The kind-dependent algorithm and the health knobs stay out of the parsed value; balancerSettings fills them.
    expect(run.topology.balancer).toEqual({ kind: "nginx" });
    expect(balancerSettings(run.topology.balancer)).toEqual({
      kind: "nginx",
      algorithm: "round_robin",
      maxFails: 1,
      failTimeoutSeconds: 10,
      retryNextUpstream: true,
    });
    expect(balancerLabel(run.topology.balancer)).toBe("nginx round_robin");
  });

  it.each([
    [{ replicas: 0 }, "topology.service.replicas", "between 1 and 16"],
    [{ replicas: 17 }, "topology.service.replicas", "between 1 and 16"],
    [{ replicas: 2.5 }, "topology.service.replicas", "whole number"],
    [{ replicas: 1, cpus: 0.01 }, "topology.service.cpus", "between 0.05 and 64"],
    [{ replicas: 1, memoryMb: 8 }, "topology.service.memoryMb", "between 32 and 65536"],
  ])("rejects service %j naming %s and the range", (service, path, range) => {
    const issues = issuesOf({ ...contractBody, topology: { service } });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(path);
    expect(issues[0]!.message).toContain(range);
  });

  it("rejects an unknown algorithm and endpoint with the allowed values", () => {
    const issues = issuesOf({
      topology: { balancer: { kind: "nginx", algorithm: "fastest" }, service: { replicas: 1 } },
      workload: { endpoint: "orders", vus: 1 },
    });
    expect(issues.map((i) => i.path).sort()).toEqual(["topology.balancer.algorithm", "workload.endpoint"]);
    expect(issues.find((i) => i.path === "workload.endpoint")!.message).toContain("hostname, cpu, products, activity");
    expect(issues.find((i) => i.path === "topology.balancer.algorithm")!.message).toContain("round_robin, least_conn");
  });

  it("limits the name to 200 characters", () => {
    expect(issuesOf({ ...contractBody, name: "x".repeat(201) })[0]).toMatchObject({ path: "name" });
    expect(issuesOf({ ...contractBody, name: "x".repeat(200) })).toEqual([]);
  });
});

describe("the issue's contract examples", () => {
  it.each([
    {
      topology: { service: { replicas: 1, cpus: 0.5, workerPool: 16, queueLimit: 0, logging: "blocking", logFlushMs: 20 } },
      workload: { endpoint: "hostname", vus: 200, durationSeconds: 20 },
    },
    {
      topology: {
        service: { replicas: 1, cpus: 0.2 },
        downstream: { mode: "async", replicas: 1, cpus: 0.2, cpuIterations: 1000 },
        broker: { kind: "kafka", cpus: 1, memoryMb: 512 },
      },
      workload: { endpoint: "cpu", vus: 1, durationSeconds: 20 },
    },
    {
      topology: { service: { replicas: 1, cpus: 1 }, storage: { kind: "cassandra", cpus: 1, memoryMb: 2048, poolSize: 12 } },
      workload: { endpoint: "activity", vus: 12, durationSeconds: 20 },
    },
    // Issue 6's.
    {
      topology: { balancer: { kind: "haproxy", algorithm: "leastconn" }, service: { replicas: 4 } },
      workload: { loadgen: "wrk", connections: 100, threads: 1, endpoint: "hostname", durationSeconds: 20 },
    },
    {
      topology: { balancer: { kind: "none" }, service: { replicas: 4 } },
      workload: { endpoint: "hostname", vus: 20, durationSeconds: 20 },
    },
    {
      topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { kind: "nginx_lua", replicas: 1 } },
      workload: { loadgen: "wrk", connections: 200, threads: 1, endpoint: "key", durationSeconds: 20 },
    },
    {
      topology: {
        balancer: { kind: "nginx", algorithm: "round_robin", maxFails: 1, failTimeoutSeconds: 10, retryNextUpstream: true },
        service: { replicas: 4 },
      },
      workload: { protocol: "grpc", arrivalRate: 8, durationSeconds: 20 },
    },
  ])("accepts %j", (body) => {
    expect(issuesOf(body)).toEqual([]);
  });
});

describe("strictness", () => {
  const base = { topology: { service: { replicas: 1 } }, workload: { endpoint: "hostname", vus: 1 } };

  it.each([
    [{ ...base, topology: { service: { replica: 3 } } }, "topology.service", "service.replica"],
    [{ ...base, topology: { service: {}, balancer: { algo: "x" } } }, "topology.balancer", "balancer.algo"],
    [
      { ...base, topology: { service: {}, storage: { kind: "postgres", pool: 3 } }, workload: { endpoint: "products", vus: 1 } },
      "topology.storage",
      "storage.pool",
    ],
    [{ ...base, workload: { endpoint: "hostname", vus: 1, users: 5 } }, "workload", "workload.users"],
    [{ ...base, extra: true }, "", "extra"],
  ])("names an unknown field instead of dropping it (%#)", (body, path, field) => {
    const issues = issuesOf(body);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(path);
    expect(issues[0]!.message).toContain(`unknown field ${field}`);
  });

  it.each([["5"], ["0x10"], [true], [[1]], [null]])("refuses %j where a number belongs", (value) => {
    const issues = issuesOf({ ...base, topology: { service: { replicas: value } } });
    expect(issues).toEqual([{ path: "topology.service.replicas", message: "service.replicas must be a number" }]);
  });

  it("refuses a NUL byte in the name", () => {
    expect(issuesOf({ ...base, name: "a\u0000b" })).toEqual([{ path: "name", message: "name must not contain NUL bytes" }]);
  });
});

describe("cross-component rules", () => {
  it.each(["products", "activity"])("%s needs a store, named on the endpoint", (endpoint) => {
    const issues = issuesOf({ topology: { service: {} }, workload: { endpoint, vus: 1 } });
    expect(issues).toEqual([{ path: "workload.endpoint", message: expect.stringContaining("topology.storage.kind") }]);
    expect(issuesOf({ topology: { service: {}, storage: { kind: "postgres" } }, workload: { endpoint, vus: 1 } })).toEqual([]);
  });

  it("refuses a broker without async work", () => {
    expect(issuesOf({ topology: { service: {}, broker: { kind: "kafka" } }, workload: { endpoint: "cpu", vus: 1 } })).toEqual([
      {
        path: "topology.broker",
        message: "topology.broker applies only with topology.downstream.mode async (or beside a service of kind image)",
      },
    ]);
  });

  it("bounds Postgres connections over every replica's pool", () => {
    const body = (replicas: number, poolSize: number) => ({
      topology: { service: { replicas }, storage: { kind: "postgres", poolSize } },
      workload: { endpoint: "activity", vus: 1 },
    });
    expect(issuesOf(body(16, 62))).toEqual([]);
    expect(issuesOf(body(16, 63))).toEqual([
      { path: "topology.storage.poolSize", message: expect.stringContaining("between 1 and 62 with 16 replica(s)") },
    ]);
    expect(
      issuesOf({ ...body(16, 1000), topology: { service: { replicas: 16 }, storage: { kind: "cassandra", poolSize: 1000 } } }),
    ).toEqual([]);
  });

  it("needs at least 1024 MB for Cassandra but lets Postgres run smaller", () => {
    const body = (kind: string) => ({
      topology: { service: {}, storage: { kind, memoryMb: 256 } },
      workload: { endpoint: "products", vus: 1 },
    });
    expect(issuesOf(body("cassandra"))).toEqual([
      { path: "topology.storage.memoryMb", message: expect.stringContaining("between 1024 and") },
    ]);
    expect(issuesOf(body("postgres"))).toEqual([]);
  });

  it.each([
    [{ workerPool: -1 }, "topology.service.workerPool", "between 0 and 10000"],
    [{ logging: "sometimes" }, "topology.service.logging", "none, async, blocking"],
    [{ logFlushMs: 10_001 }, "topology.service.logFlushMs", "between 0 and 10000"],
  ])("bounds the runtime model: %j", (service, path, range) => {
    const issues = issuesOf({ topology: { service }, workload: { endpoint: "hostname", vus: 1 } });
    expect(issues).toEqual([{ path, message: expect.stringContaining(range) }]);
  });
});

describe("ZWorkload", () => {
  it("needs exactly one of vus (closed) and arrivalRate (open)", () => {
    expect(ZWorkload.safeParse({ endpoint: "cpu" }).error?.issues[0]?.path).toEqual(["vus"]);
    expect(ZWorkload.safeParse({ endpoint: "cpu", vus: 2, arrivalRate: 10 }).error?.issues[0]?.path).toEqual(["arrivalRate"]);
    expect(ZWorkload.parse({ endpoint: "cpu", arrivalRate: 100, maxVus: 50 })).toMatchObject({ arrivalRate: 100, maxVus: 50 });
  });

  it("rejects maxVus in the closed model and a too-short duration", () => {
    const r = ZWorkload.safeParse({ endpoint: "cpu", vus: 2, maxVus: 10, durationSeconds: 1 });
    expect(r.error?.issues.map((i) => i.path.join(".")).sort()).toEqual(["durationSeconds", "maxVus"]);
  });
});

describe("load generators, protocols and service kinds", () => {
  const svc = { service: { replicas: 1 } };
  it.each([
    [{ loadgen: "wrk", vus: 10, connections: 10 }, "workload.vus", "applies to k6 only"],
    [{ loadgen: "wrk", arrivalRate: 10, connections: 10 }, "workload.arrivalRate", "wrk has connections, not an arrival rate"],
    [{ loadgen: "wrk" }, "workload.connections", "give workload.connections (1–20000) for wrk"],
    [{ loadgen: "wrk", connections: 2, threads: 4 }, "workload.threads", "must be at most workload.connections (2)"],
    [{ loadgen: "wrk", connections: 6, threads: 2, loadgenInstances: 4 }, "workload.threads", "(2 × 4)"],
    [{ loadgen: "wrk", connections: 10, protocol: "grpc" }, "workload.protocol", "wrk speaks HTTP/1.1 only"],
    [{ vus: 3, connections: 10 }, "workload.connections", "applies to wrk only"],
    [{ vus: 3, threads: 2 }, "workload.threads", "applies to wrk only"],
    [{ vus: 2, loadgenInstances: 3 }, "workload.vus", "at least workload.loadgenInstances (3)"],
    [{ vus: 20, loadgenInstances: 9 }, "workload.loadgenInstances", "between 1 and 8"],
    [{ loadgen: "jmeter", vus: 2 }, "workload.loadgen", "one of: k6, wrk"],
    [{ vus: 2, protocol: "grpc", endpoint: "cpu" }, "workload.endpoint", "must be hostname with protocol grpc"],
  ])("refuses workload %j on %s, saying why", (workload, path, message) => {
    const issues = issuesOf({ topology: svc, workload: { endpoint: "hostname", ...workload } });
    expect(issues.map((i) => i.path)).toEqual([path]);
    expect(issues[0]!.message).toContain(message);
  });

  it("fills k6, HTTP, hostname and one instance by default", () => {
    expect(ZWorkload.parse({ vus: 1 })).toMatchObject({ loadgen: "k6", protocol: "http", endpoint: "hostname", loadgenInstances: 1 });
  });

  it("serves only the hot key from the other servers, and refuses the testbed's knobs there", () => {
    const kind = (service: object, workload: object) =>
      issuesOf({ topology: { service: { replicas: 1, ...service } }, workload: { vus: 1, ...workload } });
    expect(kind({ kind: "rails" }, { endpoint: "key" })).toEqual([]);
    expect(kind({ kind: "rails" }, { endpoint: "cpu" })[0]).toMatchObject({
      path: "workload.endpoint",
      message: expect.stringContaining("must be key with service.kind rails"),
    });
    expect(kind({ kind: "rack", workerPool: 4 }, { endpoint: "key" })[0]).toMatchObject({
      path: "topology.service.workerPool",
      message: expect.stringContaining("applies only to kind testbed"),
    });
    expect(kind({ kind: "nginx_static" }, { endpoint: "key", protocol: "grpc" }).map((i) => i.path)).toContain("workload.protocol");
    expect(
      issuesOf({
        topology: { service: { kind: "memcached", replicas: 1 }, storage: { kind: "postgres" } },
        workload: { vus: 1, endpoint: "key" },
      })[0],
    ).toMatchObject({
      path: "topology.storage",
    });
    expect(kind({ kind: "unicorn" }, { endpoint: "key" })[0]!.message).toContain("service.kind must be one of: testbed, nginx_static");
  });
});

describe("isTerminal", () => {
  it("knows which statuses end a run", () => {
    expect(["queued", "running"].map((s) => isTerminal(s as never))).toEqual([false, false]);
    expect(["succeeded", "failed", "cancelled", "interrupted"].every((s) => isTerminal(s as never))).toBe(true);
  });
});

describe("ZBalancer", () => {
  const balancerIssues = (balancer: unknown) =>
    issuesOf({ topology: { balancer, service: { replicas: 2 } }, workload: { endpoint: "hostname", vus: 1 } });

  it("parses {} (the form's defaults) as nginx, and fills each kind's default algorithm", () => {
    expect(ZBalancer.parse({})).toEqual({ kind: "nginx" });
    expect(balancerSettings(ZBalancer.parse({ kind: "haproxy" }))).toMatchObject({ kind: "haproxy", algorithm: "roundrobin", maxFails: 1 });
    expect(balancerSettings(ZBalancer.parse({ kind: "none" }))).toBeUndefined();
    expect(balancerLabel(ZBalancer.parse({ kind: "none" }))).toBe("none (Docker DNS)");
  });

  it.each([
    ["nginx", ["round_robin", "least_conn", "ip_hash", "hash", "random"]],
    ["haproxy", ["roundrobin", "leastconn", "source", "random", "first"]],
  ])("accepts every %s algorithm", (kind, algorithms) => {
    for (const algorithm of algorithms) expect(balancerIssues({ kind, algorithm }), algorithm).toEqual([]);
  });

  it("refuses nginx's algorithm names for haproxy, naming haproxy's", () => {
    expect(balancerIssues({ kind: "haproxy", algorithm: "round_robin" })).toEqual([
      {
        path: "topology.balancer.algorithm",
        message:
          "balancer.algorithm must be one of: roundrobin, leastconn, source, random, first for kind haproxy (round_robin is nginx's name)",
      },
    ]);
  });

  it("refuses haproxy's algorithm names for nginx, naming nginx's", () => {
    const [issue, ...rest] = balancerIssues({ kind: "nginx", algorithm: "leastconn" });
    expect(rest).toEqual([]);
    expect(issue).toEqual({
      path: "topology.balancer.algorithm",
      message:
        "balancer.algorithm must be one of: round_robin, least_conn, ip_hash, hash, random for kind nginx (leastconn is haproxy's name)",
    });
  });

  it("names every kind's algorithms for a name no kind has", () => {
    const [issue] = balancerIssues({ kind: "haproxy", algorithm: "fastest" });
    expect(issue!.path).toBe("topology.balancer.algorithm");
    expect(issue!.message).toBe(
      "balancer.algorithm must be one of: round_robin, least_conn, ip_hash, hash, random (nginx); roundrobin, leastconn, source, random, first (haproxy)",
    );
  });

  it("refuses the health knobs, the algorithm and a CPU limit without a balancer", () => {
    const issues = balancerIssues({ kind: "none", maxFails: 3, failTimeoutSeconds: 5, retryNextUpstream: false, algorithm: "random" });
    expect(issues.map((i) => i.path).sort()).toEqual([
      "topology.balancer.algorithm",
      "topology.balancer.failTimeoutSeconds",
      "topology.balancer.maxFails",
      "topology.balancer.retryNextUpstream",
    ]);
    expect(issues.find((i) => i.path === "topology.balancer.maxFails")!.message).toBe(
      "balancer.maxFails applies only with a balancer (kind nginx or haproxy), not with kind none",
    );
    expect(balancerIssues({ kind: "none" })).toEqual([]);
  });

  it.each([
    [{ maxFails: 101 }, "topology.balancer.maxFails", "between 0 and 100"],
    [{ maxFails: -1 }, "topology.balancer.maxFails", "between 0 and 100"],
    [{ failTimeoutSeconds: 0 }, "topology.balancer.failTimeoutSeconds", "between 1 and 3600"],
    [{ retryNextUpstream: "yes" }, "topology.balancer.retryNextUpstream", "true or false"],
    [{ kind: "traefik" }, "topology.balancer.kind", "nginx, haproxy, none"],
  ])("bounds %j", (balancer, path, text) => {
    const issues = balancerIssues(balancer);
    expect(issues.map((i) => i.path)).toEqual([path]);
    expect(issues[0]!.message).toContain(text);
  });

  it("keeps the health knobs given", () => {
    expect(
      balancerSettings(ZBalancer.parse({ kind: "haproxy", maxFails: 0, failTimeoutSeconds: 30, retryNextUpstream: false })),
    ).toMatchObject({
      maxFails: 0,
      failTimeoutSeconds: 30,
      retryNextUpstream: false,
    });
  });
});
