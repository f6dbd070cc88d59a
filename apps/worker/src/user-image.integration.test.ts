import { randomBytes } from "node:crypto";
import { ensureImages } from "@scalelab/images";
import { LABELS, UNTRUSTED } from "@scalelab/scenarios/plan";
import { TRunCreateInput, ZHostFacts, ZRunSummary } from "@scalelab/scenarios/contract";
import cassandra from "cassandra-driver";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingImageMessage } from "./pipeline/prepare-images";
import { useLabWorker, waitFor } from "./testing/lab";

/*
 * A user's image as the service, for real, through the queue and the worker: the lab's testbed
 * image re-tagged under a user's name plays "the user's image" (the lab never builds or pulls it),
 * beside a Postgres store whose storage.init the lab runs before the replicas start. The replicas
 * run isolated (inspected while the load runs) and get the store's address in their environment;
 * a missing image, a bad init script, a process that exits at once and one killed for memory each
 * fail the run, saying why (one that never answers 2xx: user-image-unready.integration.test.ts).
 */
// Long enough for Cassandra's and Kafka's start on a busy 2-core machine.
const HEALTHY_MS = 60_000;
const ctx = useLabWorker("user-image", { timeouts: { healthyMs: HEALTHY_MS } });

// A tag of this test's own (other suites may tag the same image at the same time); removed at the end.
const suffix = randomBytes(4).toString("hex");
const USER_IMAGE = `scalelab-it/userapp:${suffix}`;
const OOM_IMAGE = `scalelab-it/oomer:${suffix}`;
let testbedId = "";

beforeAll(async () => {
  const { testbed, nginx } = await ensureImages(ctx.docker, ["testbed", "nginx"]);
  testbedId = (await ctx.docker.getImage(testbed!).inspect()).Id;
  await ctx.docker.getImage(testbedId).tag({ repo: "scalelab-it/userapp", tag: suffix });
  // Debian with a shell and no entrypoint (the lab's nginx image): a process that fills its memory at start.
  await ctx.docker.getImage(nginx!).tag({ repo: "scalelab-it/oomer", tag: suffix });
});

afterAll(async () => {
  // Untags only: the images stay under the lab's own names.
  for (const ref of [USER_IMAGE, OOM_IMAGE]) await ctx.docker.getImage(ref).remove({ noprune: true });
});

/** The user's image behind nginx, with what the testbed needs to reach the store given in service.env. */
const imageRun = (name: string, service: object = {}, topology: object = {}, durationSeconds = 5): TRunCreateInput =>
  ({
    name: `user image: ${name}`,
    topology: {
      balancer: { kind: "nginx" },
      service: { kind: "image", image: USER_IMAGE, replicas: 1, cpus: 0.25, memoryMb: 64, healthPath: "/health", ...service },
      ...topology,
    },
    workload: { request: { path: "/cpu" }, vus: 4, durationSeconds, loadgenCpus: 0.5 },
  }) as TRunCreateInput;

async function failed(id: string) {
  const row = await ctx.lab.finished(id);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.status, events.map((e) => e.message).join("\n")).toBe("failed");
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  console.log(`run ${id} failed in ${row.step}:\n${row.error}`);
  return { row, events: events.map((e) => e.message) };
}

const TABLE = "CREATE TABLE orders (\n  id serial PRIMARY KEY,\n  note text NOT NULL\n);\n";

describe("a user's image as the service", () => {
  it("runs isolated from the user's image, with the store's address in its environment, after storage.init", async () => {
    const init = `${TABLE}-- two rows; one with a ;\nINSERT INTO orders (note) VALUES ('first'), ('semi;colon');\n`;
    const id = await ctx.lab.createRun(
      imageRun(
        "postgres",
        {
          replicas: 2,
          env: { TESTBED_STORAGE: "postgres", TESTBED_DB_HOST: "db", TESTBED_DB_PASSWORD: "lab", TESTBED_DB_POOL: "2", APP_MODE: "bench" },
        },
        { storage: { kind: "postgres", init } },
        10,
      ),
    );
    await waitFor("the load to start", 240_000, async () => {
      const r = await ctx.lab.db.run.findUniqueOrThrow({ where: { id } });
      if (r.finishedAt) throw new Error(`the run ended before its load started: ${r.status} ${r.error}`);
      return r.loadStartedAt ?? undefined;
    });
    const network = `sl-run-${id}`;
    const ofRole = async (role: string) =>
      Promise.all(
        (await ctx.docker.listContainers({ filters: { label: [`${LABELS.run}=${id}`, `${LABELS.role}=${role}`] } })).map((c) =>
          ctx.docker.getContainer(c.Id).inspect(),
        ),
      );

    const replicas = await ofRole("app");
    expect(replicas).toHaveLength(2);
    for (const r of replicas) {
      // From the id inspected at the start, not the tag.
      expect(r.Image).toBe(testbedId);
      const h = r.HostConfig;
      expect(h.Privileged).toBe(false);
      expect(h.CapAdd ?? []).toEqual([]);
      expect([...(h.CapDrop ?? [])].sort()).toEqual([...UNTRUSTED.dropCapabilities].sort());
      expect(h.SecurityOpt).toEqual(["no-new-privileges:true"]);
      expect(h.PidsLimit).toBe(UNTRUSTED.pids);
      expect(h.Binds ?? []).toEqual([]);
      expect(h.Devices ?? []).toEqual([]);
      expect(r.Mounts).toEqual([]);
      expect(h.NetworkMode).toBe(network);
      expect(Object.keys(r.NetworkSettings.Networks)).toEqual([network]);
      const env = r.Config.Env;
      expect(env).toEqual(
        expect.arrayContaining([
          "APP_MODE=bench",
          "DATABASE_URL=postgres://lab:lab@db:5432/lab",
          "PGHOST=db",
          "PGPORT=5432",
          "PGUSER=lab",
          "PGPASSWORD=lab",
          "PGDATABASE=lab",
          "PORT=8080",
          `SCALELAB_REPLICA=${r.Config.Hostname}`,
        ]),
      );
    }
    // The lab's own containers run as before.
    const [lb] = await ofRole("lb");
    expect(lb!.HostConfig.CapDrop ?? []).toEqual([]);
    expect(lb!.HostConfig.PidsLimit ?? 0).toBe(0);
    const network0 = await ctx.docker.getNetwork(network).inspect();
    expect(network0.Internal).toBe(true);

    // storage.init ran once, before the replicas: its table and rows are in the lab's database.
    const [db] = await ofRole("db");
    const client = new pg.Client({
      host: db!.NetworkSettings.Networks[network]!.IPAddress,
      port: 5432,
      user: "lab",
      password: "lab",
      database: "lab",
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ note: string }>("SELECT note FROM orders ORDER BY id");
      expect(rows.map((r) => r.note)).toEqual(["first", "semi;colon"]);
      // The testbed's own products are not seeded for a user's image.
      const { rows: tables } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
      expect(tables.map((t) => t.name)).toEqual(["orders"]);
    } finally {
      await client.end();
    }

    const row = await ctx.lab.finished(id);
    const events = (await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } })).map((e) => e.message);
    expect(row.error, events.join("\n")).toBeNull();
    expect(row.status).toBe("succeeded");
    expect(await ctx.lab.leftovers(id)).toEqual([]);
    const initAt = events.findIndex((m) => /^storage\.init ran 2 statement\(s\) on the Postgres store in [\d.]+ s$/.test(m));
    const replicaReady = events.findIndex((m) => /^replica app-0 .* ready in/.test(m));
    expect(initAt).toBeGreaterThanOrEqual(0);
    expect(replicaReady).toBeGreaterThan(initAt);

    const host = ZHostFacts.parse(row.host);
    expect(host.serviceImage).toMatchObject({ reference: USER_IMAGE, id: testbedId });
    expect(host.serviceImage!.sizeBytes).toBeGreaterThan(1_000_000);
    const summary = ZRunSummary.parse(row.summary);
    console.log(`${USER_IMAGE} (${testbedId.slice(7, 19)}): ${summary.requests} requests, ${summary.rps} req/s, ${summary.errors} errors`);
    expect(summary.requests).toBeGreaterThan(20);
    expect(summary.errors).toBe(0);
  });

  it("runs beside Cassandra (storage.init in CQL, in the lab's keyspace), Kafka and Redis, without consumers, each address handed over", async () => {
    const init = [
      "// the user's table; a batch with a ; in a string",
      "CREATE TABLE orders (id int PRIMARY KEY, note text);",
      "BEGIN BATCH",
      "  INSERT INTO orders (id, note) VALUES (1, 'first');",
      "  INSERT INTO orders (id, note) VALUES (2, 'semi;colon');",
      "APPLY BATCH;",
    ].join("\n");
    const id = await ctx.lab.createRun(
      imageRun(
        "cassandra, kafka, redis",
        { memoryMb: 64 },
        { storage: { kind: "cassandra", memoryMb: 1024, init }, broker: { kind: "kafka" }, cache: { kind: "redis", memoryMb: 128 } },
        8,
      ),
    );
    await waitFor("the load to start", 400_000, async () => {
      const r = await ctx.lab.db.run.findUniqueOrThrow({ where: { id } });
      if (r.finishedAt) throw new Error(`the run ended before its load started: ${r.status} ${r.error}`);
      return r.loadStartedAt ?? undefined;
    });
    const network = `sl-run-${id}`;
    const inspect = async (role: string) => {
      const [c] = await ctx.docker.listContainers({ filters: { label: [`${LABELS.run}=${id}`, `${LABELS.role}=${role}`] } });
      return ctx.docker.getContainer(c!.Id).inspect();
    };
    expect((await inspect("app")).Config.Env).toEqual(
      expect.arrayContaining([
        "CASSANDRA_CONTACT_POINTS=db",
        "CASSANDRA_PORT=9042",
        "CASSANDRA_KEYSPACE=lab",
        "CASSANDRA_LOCAL_DC=datacenter1",
        "KAFKA_BROKERS=kafka:29092",
        "KAFKA_TOPIC=events",
        "REDIS_URL=redis://redis:6379",
        "REDIS_HOST=redis",
        "REDIS_PORT=6379",
      ]),
    );
    const roles = (await ctx.docker.listContainers({ filters: { label: [`${LABELS.run}=${id}`] } })).map((c) => c.Labels[LABELS.role]);
    expect(roles.sort()).toEqual(["app", "cache", "db", "kafka", "lb", "loadgen"]);
    const client = new cassandra.Client({
      contactPoints: [`${(await inspect("db")).NetworkSettings.Networks[network]!.IPAddress}:9042`],
      localDataCenter: "datacenter1",
      keyspace: "lab",
    });
    try {
      const { rows } = await client.execute("SELECT id, note FROM orders");
      expect(rows.map((r) => [r.get("id"), r.get("note")]).sort()).toEqual([
        [1, "first"],
        [2, "semi;colon"],
      ]);
    } finally {
      await client.shutdown();
    }
    const row = await ctx.lab.finished(id, 400_000);
    const events = (await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } })).map((e) => e.message);
    console.log(events.join("\n"));
    expect(row.error, events.join("\n")).toBeNull();
    expect(row.status).toBe("succeeded");
    expect(await ctx.lab.leftovers(id)).toEqual([]);
    expect(events).toContainEqual(expect.stringMatching(/^storage\.init ran 2 statement\(s\) on the Cassandra store in/));
    const summary = ZRunSummary.parse(row.summary);
    // No consumers, no figures of the image's: no broker summary to misread.
    expect(summary.broker).toBeUndefined();
    expect(summary.errors).toBe(0);
  });

  it("fails before anything is created when the image is not on the engine", async () => {
    const missing = `scalelab-it/nosuch:${suffix}`;
    const id = await ctx.lab.createRun(imageRun("missing image", { image: missing }, { storage: { kind: "postgres" } }));
    const { row, events } = await failed(id);
    expect(row.error).toBe(missingImageMessage(missing));
    expect(row.error).toBe(
      `service.image ${missing} is not on the lab's engine: build it with docker build -t ${missing} <directory> or upload its build context (POST /api/v1/images)`,
    );
    expect(row.step).toBe("preparing_images");
    expect(events).toContain("removed 0 container(s) and 0 network(s)");
  });

  it("fails on a bad storage.init, naming the statement, its line and the server's message, before the replicas start", async () => {
    const init = `${TABLE}\nINSERT INTO nope (id)\n  VALUES (1);\n`;
    const id = await ctx.lab.createRun(imageRun("bad init", {}, { storage: { kind: "postgres", init } }));
    const { row, events } = await failed(id);
    expect(row.error).toBe(`storage.init failed at statement 2 (line 6: INSERT INTO nope (id) …): relation "nope" does not exist (line 6)`);
    // Only the store was created.
    expect(events).toContain("removed 1 container(s) and 1 network(s)");
  });

  it("fails when the image's process exits at once, with its exit code and last output", async () => {
    // The testbed's `healthcheck` subcommand asks its own port, where nothing listens yet, and exits 1.
    const id = await ctx.lab.createRun(imageRun("exits at once", { command: ["healthcheck"] }));
    const { row } = await failed(id);
    expect(row.error).toMatch(
      /^replica app-0 \(scalelab-it\/userapp:\w+\) \(sl-\w+-app-0\) exited with code 1 \(OOM-killed: no\); last output:\nhealthcheck: .*connection refused/,
    );
  });

  it("fails when a replica is killed for memory at start, saying so", async () => {
    const id = await ctx.lab.createRun(
      imageRun("out of memory", {
        image: OOM_IMAGE,
        memoryMb: 32,
        command: ["sh", "-c", "echo filling memory; head -c 500m /dev/zero | tail"],
      }),
    );
    const { row } = await failed(id);
    expect(row.error).toMatch(
      /^replica app-0 \(scalelab-it\/oomer:\w+\) \(sl-\w+-app-0\) exited with code 137 \(OOM-killed: yes \(out of memory\)\); last output:\nfilling memory/,
    );
  });
});
