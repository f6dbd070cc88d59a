import { describe, expect, it } from "vitest";
import { buildPlan, requiredImages } from "../../plan/plan";
import { TRunCreateInput, ZRunCreate } from "../../contract/run";
import { runIssues, serviceEnv, SETUP_FIELDS } from "../registry";
import { UNTRUSTED } from "../types";

const images = { nginx: "n", haproxy: "h", k6: "k", kafka: "kf", cassandra: "c", postgres: "p", redis: "r", rabbitmq: "rq" };

/** A user's image behind nginx with one request template, and the dependencies of `topology`. */
const imageRun = (topology: object = {}, service: object = {}): TRunCreateInput =>
  ({
    topology: { service: { kind: "image", image: "shop/api:1.2", replicas: 2, port: 5000, ...service }, ...topology },
    workload: { vus: 4, durationSeconds: 10, request: { path: "/orders" } },
  }) as TRunCreateInput;
const planOf = (input: TRunCreateInput) => buildPlan({ runId: "cm3x9k2abc0001", run: ZRunCreate.parse(input), images });
const replicas = (input: TRunCreateInput) => planOf(input).containers.filter((c) => c.role === "app");
const issuesOf = (input: unknown) => {
  const r = ZRunCreate.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
};

describe("what a user's image gets from each dependency", () => {
  it.each([
    [
      "Postgres",
      { storage: { kind: "postgres" } },
      {
        DATABASE_URL: "postgres://lab:lab@db:5432/lab",
        PGHOST: "db",
        PGPORT: "5432",
        PGUSER: "lab",
        PGPASSWORD: "lab",
        PGDATABASE: "lab",
      },
    ],
    [
      "Cassandra",
      { storage: { kind: "cassandra", memoryMb: 1024 } },
      { CASSANDRA_CONTACT_POINTS: "db", CASSANDRA_PORT: "9042", CASSANDRA_KEYSPACE: "lab", CASSANDRA_LOCAL_DC: "datacenter1" },
    ],
    ["Kafka", { broker: { kind: "kafka" } }, { KAFKA_BROKERS: "kafka:29092", KAFKA_TOPIC: "events" }],
    ["RabbitMQ", { broker: { kind: "rabbitmq" } }, { AMQP_URL: "amqp://lab:lab@rabbitmq:5672/", AMQP_QUEUE: "events" }],
    ["Redis", { cache: { kind: "redis" } }, { REDIS_URL: "redis://redis:6379", REDIS_HOST: "redis", REDIS_PORT: "6379" }],
  ])("%s: its address in the replicas' environment, beside the user's own and the lab's", (_, topology, expected) => {
    const input = imageRun(topology, { env: { APP_MODE: "bench" } });
    expect(serviceEnv(ZRunCreate.parse(input))).toEqual(expected);
    for (const [i, r] of replicas(input).entries()) {
      expect(r.env).toEqual({ APP_MODE: "bench", ...expected, PORT: "5000", SCALELAB_REPLICA: `app-${i}` });
    }
  });

  it("a run with every dependency hands all of them; one without any hands none of the TESTBED_* names", () => {
    const all = replicas(imageRun({ storage: { kind: "postgres" }, broker: { kind: "kafka" }, cache: { kind: "redis" } }))[0]!.env;
    expect(Object.keys(all)).toEqual(expect.arrayContaining(["DATABASE_URL", "PGHOST", "KAFKA_BROKERS", "REDIS_URL"]));
    const none = replicas(imageRun())[0]!.env;
    expect(none).toEqual({ PORT: "5000", SCALELAB_REPLICA: "app-0" });
    expect(Object.keys(all).filter((k) => k.startsWith("TESTBED_"))).toEqual([]);
  });
});

describe("service.env names the lab sets", () => {
  it("refuses a name a dependency of the run sets, naming the field, the dependency and its value", () => {
    expect(issuesOf(imageRun({ storage: { kind: "postgres" } }, { env: { DATABASE_URL: "postgres://mine" } }))).toEqual([
      {
        path: "topology.service.env.DATABASE_URL",
        message:
          "topology.service.env.DATABASE_URL is set by the lab: the run's postgres (topology.storage) gives it DATABASE_URL=postgres://lab:lab@db:5432/lab; leave it out or use another name",
      },
    ]);
    expect(issuesOf(imageRun({ broker: { kind: "rabbitmq" } }, { env: { AMQP_URL: "x" } }))[0]?.message).toContain(
      "the run's rabbitmq (topology.broker)",
    );
    expect(issuesOf(imageRun({ cache: { kind: "redis" } }, { env: { REDIS_PORT: "1" } }))[0]?.message).toContain(
      "the run's cache (topology.cache)",
    );
  });

  it("takes the same name when the run has no such dependency (nothing would replace it)", () => {
    expect(issuesOf(imageRun({}, { env: { DATABASE_URL: "postgres://elsewhere/db", KAFKA_BROKERS: "k:1" } }))).toEqual([]);
    expect(issuesOf(imageRun({ storage: { kind: "cassandra", memoryMb: 1024 } }, { env: { DATABASE_URL: "x" } }))).toEqual([]);
  });

  it("leaves the lab's own servers alone (they have no service.env)", () => {
    const testbed = ZRunCreate.parse({
      topology: { service: {}, storage: { kind: "postgres" } },
      workload: { endpoint: "products", vus: 2 },
    });
    expect(runIssues(testbed)).toEqual([]);
  });
});

describe("the plan of a user's image", () => {
  it("runs the replicas from the user's image, untrusted, on its port and health path; nothing else is untrusted", () => {
    const plan = planOf(
      imageRun({ storage: { kind: "postgres" }, cache: { kind: "redis" } }, { healthPath: "/healthz", command: ["serve"] }),
    );
    const app = plan.containers.filter((c) => c.role === "app");
    expect(app).toHaveLength(2);
    for (const r of app) {
      expect(r).toMatchObject({ image: "shop/api:1.2", untrusted: true, tier: 1, cmd: ["serve"], ports: [5000] });
      expect(r.ready).toEqual([{ kind: "http", port: 5000, path: "/healthz" }]);
      expect(r.stats).toBeUndefined();
    }
    expect(plan.containers.filter((c) => c.role !== "app").every((c) => c.untrusted === undefined)).toBe(true);
    expect(plan.loadgens.every((c) => c.untrusted === undefined)).toBe(true);
    // The image is the user's: the lab builds none for the service.
    expect(requiredImages(ZRunCreate.parse(imageRun()))).not.toContain("testbed");
  });

  it("a stopped replica's network holder runs a lab image with sleep, not the user's", () => {
    const input = { ...imageRun(), faults: [{ at: 2, action: "stop", target: { role: "app", index: 0 } }] } as TRunCreateInput;
    const holder = planOf(input).containers.find((c) => c.role === "netns")!;
    expect(holder).toMatchObject({ image: "k", entrypoint: ["sleep", "infinity"] });
    expect(holder.untrusted).toBeUndefined();
  });

  it("keeps capabilities common images need to start and a pids limit", () => {
    expect(UNTRUSTED.dropCapabilities).toEqual(expect.arrayContaining(["NET_RAW", "MKNOD", "SYS_CHROOT", "AUDIT_WRITE", "SETFCAP"]));
    for (const kept of ["CHOWN", "SETUID", "SETGID", "DAC_OVERRIDE", "NET_BIND_SERVICE", "KILL"]) {
      expect(UNTRUSTED.dropCapabilities).not.toContain(kept);
    }
    expect(UNTRUSTED.pids).toBeGreaterThanOrEqual(256);
  });

  it("Postgres: no products, the lab's database ready, storage.init split into statements to run once", () => {
    const init = "CREATE TABLE orders (id serial PRIMARY KEY, note text);\n-- seed\nINSERT INTO orders (note) VALUES ('a;b');\n";
    const db = planOf(imageRun({ storage: { kind: "postgres", init } })).containers.find((c) => c.role === "db")!;
    expect(db.tier).toBe(0);
    const [probe] = db.ready;
    expect(probe).toMatchObject({ kind: "query", engine: "postgres", database: "lab", setup: [], check: "SELECT 1 AS ready" });
    expect(probe).not.toHaveProperty("seed");
    expect(probe!.kind === "query" && probe!.init).toEqual([
      { text: "CREATE TABLE orders (id serial PRIMARY KEY, note text)", line: 1 },
      { text: "INSERT INTO orders (note) VALUES ('a;b')", line: 3 },
    ]);
    expect(db.files.map((f) => f.title)).toEqual(["storage.init"]);
    // The user's image sizes its own pools: at least Postgres's default connections.
    expect(db.cmd).toEqual(["postgres", "-c", "max_connections=100"]);
  });

  it("Cassandra: the keyspace, no products; storage.init runs in the keyspace", () => {
    const init = "CREATE TABLE orders (id int PRIMARY KEY) // the table\n;";
    const db = planOf(imageRun({ storage: { kind: "cassandra", memoryMb: 1024, init } })).containers.find((c) => c.role === "db")!;
    const probe = db.ready.find((p) => p.kind === "query")!;
    expect(probe).toMatchObject({ engine: "cassandra", database: "lab", check: "SELECT release_version FROM system.local" });
    expect(probe.kind === "query" && probe.setup).toEqual([expect.stringMatching(/^CREATE KEYSPACE IF NOT EXISTS lab /)]);
    expect(probe).not.toHaveProperty("seed");
    expect(probe.kind === "query" && probe.init).toEqual([{ text: "CREATE TABLE orders (id int PRIMARY KEY) // the table", line: 1 }]);
  });

  it("Kafka beside an image: no consumers, topics created on first use, a partition per replica", () => {
    const plan = planOf(imageRun({ broker: { kind: "kafka" } }, { replicas: 3 }));
    expect(plan.containers.map((c) => c.role).sort()).toEqual(["app", "app", "app", "kafka", "lb"]);
    const props = plan.containers.find((c) => c.role === "kafka")!.files[0]!.content;
    expect(props).toContain("auto.create.topics.enable=true");
    expect(props).toContain("num.partitions=3");
  });

  it("RabbitMQ beside an image: no consumers", () => {
    const roles = planOf(imageRun({ broker: { kind: "rabbitmq" } })).containers.map((c) => c.role);
    expect(roles.sort()).toEqual(["app", "app", "lb", "rabbitmq"]);
  });

  it("Redis beside an image: within topology.cache's memory, evicting least recently used keys", () => {
    const redis = planOf(imageRun({ cache: { kind: "redis", memoryMb: 128 } })).containers.find((c) => c.role === "cache")!;
    expect(redis).toMatchObject({ image: "r", tier: 0, memoryBytes: 128 * 1024 * 1024, ports: [6379] });
    expect(redis.cmd).toEqual(expect.arrayContaining(["--maxmemory", "96mb", "--maxmemory-policy", "allkeys-lru"]));
  });

  it("the testbed keeps its products, its seed and its closed topics", () => {
    const plan = buildPlan({
      runId: "cm3x9k2abc0001",
      run: ZRunCreate.parse({
        topology: { service: {}, storage: { kind: "postgres" }, downstream: { mode: "async" } },
        workload: { endpoint: "products", vus: 2 },
      }),
      images: { ...images, testbed: "t" },
    });
    const db = plan.containers.find((c) => c.role === "db")!;
    expect(db.ready[0]).toMatchObject({ check: "SELECT count(*) AS n FROM products" });
    expect(plan.containers.find((c) => c.role === "kafka")!.files[0]!.content).toContain("auto.create.topics.enable=false");
  });
});

describe("storage.init in the contract", () => {
  it("refuses a script whose string is left open, naming the line", () => {
    expect(issuesOf(imageRun({ storage: { kind: "postgres", init: "CREATE TABLE a (id int);\nINSERT INTO a VALUES ('x);" } }))).toEqual([
      { path: "topology.storage.init", message: "storage.init (SQL): a string starting on line 2 is not closed" },
    ]);
  });

  it("refuses a script of only comments", () => {
    expect(issuesOf(imageRun({ storage: { kind: "cassandra", memoryMb: 1024, init: "// nothing\n" } }))[0]?.message).toBe(
      "storage.init has no statement: give CQL statements ended by ;",
    );
  });
});

describe("the setup rows of a user's image", () => {
  const row = (key: string, input: TRunCreateInput) => SETUP_FIELDS.find((f) => f.key === key)!.show(ZRunCreate.parse(input));

  it("Environment lists the user's names and the lab's", () => {
    const input = imageRun({ storage: { kind: "postgres" } }, { env: { APP_MODE: "bench" } });
    expect(row("environment", input)).toBe(
      "yours: APP_MODE=bench; the lab's: DATABASE_URL=postgres://lab:lab@db:5432/lab, PGHOST=db, PGPORT=5432, PGUSER=lab, PGPASSWORD=lab, PGDATABASE=lab, PORT=5000, SCALELAB_REPLICA=app-<i>",
    );
    expect(row("environment", { topology: { service: {} }, workload: { vus: 1 } })).toBe("— (your image only)");
  });

  it("Server names the image, its port and health path; Broker and Cache show what runs beside it", () => {
    const input = imageRun({ broker: { kind: "rabbitmq" }, cache: { kind: "redis" } });
    expect(row("server", input)).toBe("image shop/api:1.2, port 5000, health GET /");
    expect(row("broker", input)).toBe("rabbitmq, unlimited CPU, 512 MB");
    expect(row("cache", input)).toBe("redis, 256 MB (LRU)");
  });
});
