import { describe, expect, it } from "vitest";
import { buildPlan, HAPROXY_CFG_PATH, K6_SCRIPT_PATH, NGINX_CONF_PATH, previewFiles, requiredImages, tiers, PlanInput } from "./plan";
import { ZRunCreate, TRunCreateInput } from "../contract/run";

const images = {
  testbed: "scalelab/testbed:aaa",
  nginx: "scalelab/nginx:bbb",
  haproxy: "scalelab/haproxy:ggg",
  k6: "scalelab/k6:ccc",
  kafka: "scalelab/kafka:ddd",
  cassandra: "scalelab/cassandra:eee",
  postgres: "scalelab/postgres:fff",
  redis: "scalelab/redis:hhh",
  wrk: "scalelab/wrk:iii",
  ruby: "scalelab/ruby:jjj",
  "hotkey-nginx": "scalelab/hotkey-nginx:kkk",
};
const runId = "cm3x9k2abc0001";
const plan = (run: TRunCreateInput, id = runId) => buildPlan({ runId: id, run: ZRunCreate.parse(run), images } satisfies PlanInput);
const byRole = (p: ReturnType<typeof plan>, role: string) => p.containers.filter((c) => c.role === role);

describe("buildPlan", () => {
  const p = plan({
    topology: { balancer: { algorithm: "least_conn", cpus: 0.5 }, service: { replicas: 3, cpus: 0.2, memoryMb: 128, threads: 1 } },
    workload: { endpoint: "cpu", vus: 3, durationSeconds: 5, loadgenCpus: 1 },
  });
  const apps = byRole(p, "app");
  const lb = byRole(p, "lb")[0]!;

  it("puts every container of the run on its own labelled network", () => {
    expect(p.network).toEqual({ name: `sl-run-${runId}`, labels: { "scalelab.managed": "true", "scalelab.run": runId } });
    for (const c of [...p.containers, ...p.loadgens]) {
      expect(c.labels).toEqual({ "scalelab.managed": "true", "scalelab.run": runId, "scalelab.role": c.role });
      expect(c.name).toMatch(/^sl-cm3x9k2a-(app|lb|loadgen)-\d+$/);
    }
  });

  it("labels the objects with the control plane's instance when given", () => {
    const run = ZRunCreate.parse({ topology: { service: {} }, workload: { endpoint: "hostname", vus: 1 } });
    const q = buildPlan({ runId, instance: "a1b2c3", run, images });
    for (const c of [q.network, ...q.containers, ...q.loadgens]) expect(c.labels["scalelab.instance"]).toBe("a1b2c3");
    expect(() => buildPlan({ runId, instance: "No Spaces", run, images })).toThrow(/instance/);
  });

  it("plans replicas with CPU and memory limits, reachable names, a health probe and a stats endpoint", () => {
    expect(apps.map((a) => [a.name, a.hostname, a.aliases])).toEqual([
      ["sl-cm3x9k2a-app-0", "app-0", ["app-0", "app"]],
      ["sl-cm3x9k2a-app-1", "app-1", ["app-1", "app"]],
      ["sl-cm3x9k2a-app-2", "app-2", ["app-2", "app"]],
    ]);
    expect(apps[0]).toMatchObject({
      role: "app",
      component: "service",
      image: images.testbed,
      cpus: 0.2,
      nanoCpus: 200_000_000,
      memoryBytes: 128 * 1024 * 1024,
      env: {
        TESTBED_ROLE: "service",
        TESTBED_PORT: "8080",
        TESTBED_THREADS: "1",
        TESTBED_CPU_ITERATIONS: "1000",
        TESTBED_DOWNSTREAM: "none",
        TESTBED_STORAGE: "none",
      },
      ready: [{ kind: "http", port: 8080, path: "/health" }],
      stats: { port: 8080, path: "/stats" },
    });
    expect(p.backends).toEqual(["app-0", "app-1", "app-2"]);
  });

  it("starts the balancer after the replicas and waits until every replica answers through it", () => {
    expect(lb).toMatchObject({ role: "lb", image: images.nginx, aliases: ["lb"], nanoCpus: 500_000_000 });
    expect(lb.memoryBytes).toBeUndefined();
    expect(lb.files.map((f) => f.path)).toEqual([NGINX_CONF_PATH]);
    expect(lb.files[0]!.content).toContain("least_conn;");
    expect(lb.files[0]!.content).toContain("server app-2:8080");
    expect(lb.ready).toEqual([{ kind: "backends", port: 8080, path: "/health", backends: ["app-0", "app-1", "app-2"] }]);
    expect(tiers(p).map((t) => t.map((c) => c.role))).toEqual([["app", "app", "app"], ["lb"]]);
  });

  it("runs k6 with its CPU limit, the script, the web dashboard and the histogram output", () => {
    expect(p.loadgens[0]).toMatchObject({ role: "loadgen", image: images.k6, nanoCpus: 1_000_000_000 });
    expect(p.loadgens[0]!.cmd).toEqual(["run", "--no-color", "--quiet", "--out", "scalelab=http_req_duration", K6_SCRIPT_PATH]);
    expect(p.loadgens[0]!.env).toMatchObject({
      K6_WEB_DASHBOARD: "true",
      K6_WEB_DASHBOARD_PERIOD: "1s",
      K6_WEB_DASHBOARD_TAGS: "backend,backend_error",
    });
    expect(p.loadgens[0]!.files[0]!.path).toBe(K6_SCRIPT_PATH);
    expect(p.loadgens[0]!.files[0]!.content).toContain("http://lb:8080/cpu");
  });

  it("leaves CPU unlimited and the thread count to the runtime when not given", () => {
    const q = plan({ topology: { service: { replicas: 1 } }, workload: { endpoint: "hostname", vus: 1 } });
    expect(byRole(q, "app")[0]!.nanoCpus).toBeUndefined();
    expect(byRole(q, "app")[0]!.env.TESTBED_THREADS).toBeUndefined();
    expect(byRole(q, "lb")[0]!.nanoCpus).toBeUndefined();
  });

  it("sizes the runtime to the CPU limit when no thread count is given, as container-aware runtimes do", () => {
    const threadsOf = (cpus: number) =>
      byRole(plan({ topology: { service: { cpus } }, workload: { endpoint: "hostname", vus: 1 } }), "app")[0]!.env.TESTBED_THREADS;
    expect([threadsOf(0.2), threadsOf(1), threadsOf(1.5)]).toEqual(["1", "1", "2"]);
    const async = plan({ topology: { service: {}, downstream: { mode: "async", cpus: 0.2 } }, workload: { endpoint: "cpu", vus: 1 } });
    expect(byRole(async, "consumer")[0]!.env.TESTBED_THREADS).toBe("1");
  });

  it("passes the runtime model to every replica", () => {
    const q = plan({
      topology: { service: { replicas: 2, workerPool: 16, queueLimit: 100, logging: "blocking", logFlushMs: 20 } },
      workload: { endpoint: "hostname", vus: 200 },
    });
    for (const a of byRole(q, "app")) {
      expect(a.env).toMatchObject({
        TESTBED_WORKER_POOL: "16",
        TESTBED_QUEUE_LIMIT: "100",
        TESTBED_LOGGING: "blocking",
        TESTBED_LOG_FLUSH_MS: "20",
      });
    }
  });

  it.each(["short", "UPPERCASE1", "has space 1", "ends-with-", "-starts", "a/b/c/d/e", "x".repeat(65)])("rejects run id %j", (id) => {
    expect(() => plan({ topology: { service: {} }, workload: { endpoint: "hostname", vus: 1 } }, id)).toThrow(/invalid run id/);
  });

  it("accepts a uuid", () => {
    expect(
      plan({ topology: { service: {} }, workload: { endpoint: "hostname", vus: 1 } }, "0b7c3f9e-2a41-4c55-9d0e-8f1a2b3c4d5e").network.name,
    ).toBe("sl-run-0b7c3f9e-2a41-4c55-9d0e-8f1a2b3c4d5e");
  });

  it("fails clearly when an image it needs was not given", () => {
    const run = ZRunCreate.parse({ topology: { service: {}, storage: { kind: "postgres" } }, workload: { endpoint: "products", vus: 1 } });
    expect(() => buildPlan({ runId, run, images: { testbed: "t", nginx: "n", k6: "k" } })).toThrow(/no image given for postgres/);
  });
});

describe("async downstream through Kafka", () => {
  const p = plan({
    topology: {
      service: { replicas: 1, cpus: 0.2 },
      downstream: { mode: "async", replicas: 2, cpus: 0.2, cpuIterations: 1000 },
      broker: { kind: "kafka", cpus: 1, memoryMb: 512 },
    },
    workload: { endpoint: "cpu", vus: 1, durationSeconds: 20 },
  });

  it("starts the broker first, then the service and the consumers, then the balancer", () => {
    expect(tiers(p).map((t) => t.map((c) => c.role))).toEqual([["kafka"], ["app", "consumer", "consumer"], ["lb"]]);
  });

  it("sizes the broker's heap from its memory and partitions the topic per consumer", () => {
    const kafka = byRole(p, "kafka")[0]!;
    expect(kafka).toMatchObject({
      hostname: "kafka",
      image: images.kafka,
      nanoCpus: 1e9,
      memoryBytes: 512 * 1024 * 1024,
      env: { KAFKA_HEAP_MB: "256" },
    });
    const props = kafka.files[0]!.content;
    expect(props).toContain("num.partitions=2");
    expect(props).toContain("advertised.listeners=INTERNAL://kafka:29092");
    expect(kafka.ready.map((r) => r.kind)).toEqual(["log", "tcp"]);
  });

  it("points the service and the consumers at the topic", () => {
    expect(byRole(p, "app")[0]!.env).toMatchObject({
      TESTBED_DOWNSTREAM: "async",
      TESTBED_KAFKA_BROKERS: "kafka:29092",
      TESTBED_KAFKA_PARTITIONS: "2",
    });
    for (const c of byRole(p, "consumer")) {
      expect(c.env).toMatchObject({ TESTBED_ROLE: "consumer", TESTBED_DOWNSTREAM_CPU_ITERATIONS: "1000", TESTBED_KAFKA_TOPIC: "events" });
      expect(c.stats).toBeDefined();
    }
  });

  it("needs the kafka image only for async work", () => {
    expect(requiredImages(ZRunCreate.parse({ topology: { service: {} }, workload: { endpoint: "cpu", vus: 1 } })).sort()).toEqual([
      "k6",
      "nginx",
      "testbed",
    ]);
    expect(
      requiredImages(ZRunCreate.parse({ topology: { service: {}, downstream: { mode: "async" } }, workload: { endpoint: "cpu", vus: 1 } })),
    ).toContain("kafka");
  });
});

describe("sync downstream", () => {
  it("plans logs replicas behind one shared alias and no broker", () => {
    const p = plan({ topology: { service: {}, downstream: { mode: "sync", replicas: 2 } }, workload: { endpoint: "cpu", vus: 1 } });
    expect(byRole(p, "kafka")).toEqual([]);
    expect(byRole(p, "logs").map((c) => c.aliases)).toEqual([
      ["logs-0", "logs"],
      ["logs-1", "logs"],
    ]);
    expect(byRole(p, "app")[0]!.env).toMatchObject({ TESTBED_DOWNSTREAM: "sync", TESTBED_LOGS_URL: "http://logs:8080/events" });
  });
});

describe("storage", () => {
  it("gives Postgres a schema, a seed and enough connections for every replica's pool", () => {
    const p = plan({
      topology: { service: { replicas: 2 }, storage: { kind: "postgres", cpus: 1, memoryMb: 2048, poolSize: 12, products: 250 } },
      workload: { endpoint: "activity", vus: 12 },
    });
    const db = byRole(p, "db")[0]!;
    expect(db).toMatchObject({ image: images.postgres, hostname: "db", tier: 0, cmd: ["postgres", "-c", "max_connections=34"] });
    const probe = db.ready[0]!;
    expect(probe).toMatchObject({ kind: "query", engine: "postgres", port: 5432, check: "SELECT count(*) AS n FROM products" });
    expect(probe.kind === "query" && probe.setup.join("\n")).toContain("generate_series(1, 250)");
    expect(byRole(p, "app")[0]!.env).toMatchObject({ TESTBED_STORAGE: "postgres", TESTBED_DB_HOST: "db", TESTBED_DB_POOL: "12" });
    expect(p.loadgens[0]!.files[0]!.content).toContain('http.request("POST", "http://lb:8080/activity"');
  });

  it("gives Cassandra its yaml, a keyspace with replication factor 1 and a row-by-row seed", () => {
    const p = plan({
      topology: { service: {}, storage: { kind: "cassandra", memoryMb: 2048, poolSize: 4 } },
      workload: { endpoint: "products", vus: 1 },
    });
    const db = byRole(p, "db")[0]!;
    expect(db).toMatchObject({ image: images.cassandra, hostname: "db", env: { CASSANDRA_HEAP_MB: "1024" } });
    expect(db.files.find((f) => f.path.endsWith("cassandra.yaml"))!.content).toContain('seeds: "db:7000"');
    const query = db.ready.find((r) => r.kind === "query");
    expect(query).toMatchObject({ engine: "cassandra", seed: { rows: 100 } });
    expect(query?.kind === "query" && query.setup[0]).toContain("'replication_factor': 1");
  });
});

describe("previewFiles", () => {
  it("lists every generated file of the run", () => {
    const p = plan({
      topology: { service: {}, downstream: { mode: "async" }, storage: { kind: "cassandra", memoryMb: 1024 } },
      workload: { endpoint: "activity", vus: 1 },
    });
    expect(
      previewFiles(p)
        .map((f) => f.title)
        .sort(),
    ).toEqual(["cassandra.yaml", "k6 script", "nginx.conf", "schema", "server.properties"]);
  });

  it("shows the replicas' identical files once and names a title two roles share by role", () => {
    const p = plan({
      topology: { service: { kind: "rack", replicas: 3 } },
      workload: { loadgen: "wrk", connections: 20, endpoint: "key" },
    });
    expect(
      previewFiles(p)
        .map((f) => f.title)
        .sort(),
    ).toEqual(["config.ru", "nginx.conf", "puma.rb", "seed.aof", "wrk script"]);
    const lua = plan({ topology: { service: { kind: "nginx_lua", replicas: 3 } }, workload: { vus: 1, endpoint: "key" } });
    expect(
      previewFiles(lua)
        .map((f) => f.title)
        .sort(),
    ).toEqual(["app nginx.conf", "k6 script", "lb nginx.conf", "seed.aof"]);
  });
});

describe("balancer kinds", () => {
  const run = (balancer: object) => ({
    topology: { balancer, service: { replicas: 4 } },
    workload: { endpoint: "hostname" as const, vus: 4 },
  });
  const script = (p: ReturnType<typeof plan>) => p.loadgens[0]!.files[0]!.content;

  it("without a balancer: no lb container, k6 aimed at the service's shared alias, the warm-up at a replica", () => {
    const p = plan(run({ kind: "none" }));
    expect(byRole(p, "lb")).toEqual([]);
    expect(p.containers.every((c) => c.role === "app")).toBe(true);
    expect(p.entry).toEqual({ role: "app", port: 8080, protocol: "http" });
    expect(script(p)).toContain('"http://app:8080/hostname"');
    expect(script(p)).not.toContain("http://lb:");
    // Readiness is every replica's own /health.
    for (const c of p.containers) expect(c.ready).toEqual([{ kind: "http", port: 8080, path: "/health" }]);
    expect(requiredImages(ZRunCreate.parse(run({ kind: "none" }))).sort()).toEqual(["k6", "testbed"]);
  });

  it("with nginx or haproxy: the lb is the entry and k6's target", () => {
    for (const kind of ["nginx", "haproxy"]) {
      const p = plan(run({ kind }));
      expect(p.entry).toEqual({ role: "lb", port: 8080, protocol: "http" });
      expect(script(p)).toContain('"http://lb:8080/hostname"');
    }
  });

  it("plans HAProxy with its image, its haproxy.cfg and the through-the-balancer probe", () => {
    const p = plan(run({ kind: "haproxy", algorithm: "leastconn", cpus: 0.5 }));
    const [lb, ...more] = byRole(p, "lb");
    expect(more).toEqual([]);
    expect(lb).toMatchObject({
      component: "haproxy",
      image: images.haproxy,
      hostname: "lb",
      aliases: ["lb"],
      tier: 2,
      nanoCpus: 500_000_000,
    });
    expect(lb!.files.map((f) => f.path)).toEqual([HAPROXY_CFG_PATH]);
    expect(lb!.files[0]!.content).toContain("balance leastconn");
    expect(lb!.files[0]!.content).toContain("server-template app 4 app:8080 check resolvers docker init-addr libc,none");
    expect(lb!.ready).toEqual([{ kind: "backends", port: 8080, path: "/health", backends: ["app-0", "app-1", "app-2", "app-3"] }]);
    expect(requiredImages(ZRunCreate.parse(run({ kind: "haproxy" }))).sort()).toEqual(["haproxy", "k6", "testbed"]);
    expect(previewFiles(p).map((f) => f.title)).toContain("haproxy.cfg");
  });

  it("passes nginx's algorithm and health knobs into nginx.conf", () => {
    const p = plan(run({ kind: "nginx", algorithm: "ip_hash", maxFails: 3, failTimeoutSeconds: 30, retryNextUpstream: false }));
    const conf = byRole(p, "lb")[0]!.files[0]!.content;
    expect(conf).toContain("ip_hash;");
    expect(conf).toContain("server app-3:8080 max_fails=3 fail_timeout=30s;");
    expect(conf).toContain("proxy_next_upstream off;");
  });

  it("waits for one answer through a sticky balancer (one client sees one replica), for every replica otherwise", () => {
    for (const [kind, algorithm] of [
      ["nginx", "ip_hash"],
      ["haproxy", "source"],
      ["haproxy", "first"],
    ]) {
      expect(byRole(plan(run({ kind, algorithm })), "lb")[0]!.ready, algorithm).toEqual([{ kind: "http", port: 8080, path: "/health" }]);
    }
    for (const [kind, algorithm] of [
      ["nginx", "hash"],
      ["nginx", "random"],
      ["haproxy", "random"],
    ]) {
      expect(byRole(plan(run({ kind, algorithm })), "lb")[0]!.ready[0], algorithm).toMatchObject({ kind: "backends" });
    }
  });
});

describe("a user's image behind the balancers", () => {
  const imageRun = (balancer: object, loadgen: "k6" | "wrk" = "k6") =>
    plan({
      topology: { service: { kind: "image", image: "myapp:1.2", replicas: 2, port: 5000, healthPath: "/healthz" }, balancer },
      workload: { request: { path: "/" }, loadgen, ...(loadgen === "wrk" ? { connections: 4 } : { vus: 4 }) },
    });
  const file = (p: ReturnType<typeof plan>, path: string) => byRole(p, "lb")[0]!.files.find((f) => f.path === path)!.content;

  it("nginx sends to the image's port; the balancer is ready once every replica answered its health path, named by the balancer's header", () => {
    const p = imageRun({ kind: "nginx" });
    expect(file(p, NGINX_CONF_PATH)).toMatch(/server app-0:5000 .*\n {4}server app-1:5000 /);
    expect(byRole(p, "lb")[0]!.ready).toEqual([
      { kind: "backends", port: 8080, path: "/healthz", backends: ["app-0", "app-1"], header: "X-Scalelab-Upstream" },
    ]);
    expect(p.backendSource).toBe("balancer");
    expect(p.entry).toMatchObject({ role: "lb", port: 8080 });
    expect(p.loadgens[0]!.files[0]!.content).toContain('const SOURCE = "balancer";');
  });

  it("HAProxy checks the image's health path on its port", () => {
    const cfg = file(imageRun({ kind: "haproxy", algorithm: "roundrobin" }), HAPROXY_CFG_PATH);
    expect(cfg).toContain("server-template app 2 app:5000 check");
    expect(cfg).toContain("option httpchk GET /healthz");
  });

  it("a sticky algorithm waits for the health path through the balancer", () => {
    expect(byRole(imageRun({ kind: "nginx", algorithm: "ip_hash" }), "lb")[0]!.ready).toEqual([
      { kind: "http", port: 8080, path: "/healthz" },
    ]);
  });

  it("without a balancer the load goes to the image's port: k6 counts the address it reached, wrk cannot tell", () => {
    const k6 = imageRun({ kind: "none" });
    expect(k6.entry).toMatchObject({ role: "app", port: 5000 });
    expect(k6.backendSource).toBe("address");
    expect(k6.loadgens[0]!.files[0]!.content).toContain('"http://app:5000');
    const wrk = imageRun({ kind: "none" }, "wrk");
    expect(wrk.backendSource).toBe("unknown");
    expect(wrk.loadgens[0]!.cmd!.at(-1)).toMatch(/^http:\/\/app:5000\//);
    expect(wrk.loadgens[0]!.cmd).toContain("X-Scalelab-Upstream");
  });

  it("the lab's own servers keep X-Backend", () => {
    const p = plan({ topology: { service: { replicas: 2 }, balancer: { kind: "nginx" } }, workload: { endpoint: "hostname", vus: 2 } });
    expect(p.backendSource).toBe("header");
    expect(byRole(p, "lb")[0]!.ready[0]).not.toHaveProperty("header");
  });
});
