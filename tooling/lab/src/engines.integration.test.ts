import { randomBytes } from "node:crypto";
import { createDb } from "@scalelab/db";
import { findEngine } from "@scalelab/db/engines";
import { afterAll, describe, expect, it } from "vitest";
import { env } from "./env";
import { lab } from "./testing";

/*
 * `lab engine add|list|remove` as the lab's host runs them (tsx src/cli.ts), against the real
 * Postgres of DATABASE_URL (required: this fails loudly without it), under a name of its own.
 */
if (!env.DATABASE_URL) throw new Error("DATABASE_URL is not set: the lab's engine commands need the lab's database");
const db = createDb(env.DATABASE_URL, { max: 1 });
const name = `it-lab-${randomBytes(3).toString("hex")}`;

afterAll(async () => {
  await db.engine.deleteMany({ where: { name } });
  await db.$disconnect();
});

describe("lab engine", () => {
  it("add stores a validated config, list shows it, add again replaces it, remove removes it", async () => {
    // --no-check: addresses of no cluster, stored as given (engines.cluster.test.ts checks against the test cluster).
    const added = await lab("engine", "add", name, "--no-check", "--manager", "tcp://10.9.0.2:2375", "--node", "node1=tcp://10.9.0.2:2375");
    expect(added).toMatchObject({
      code: 0,
      stderr: expect.stringContaining(`engine ${name}: swarm, manager tcp://10.9.0.2:2375, 1 node(s) node1`),
    });
    expect((await findEngine(db, name))?.config).toEqual({
      name,
      kind: "swarm",
      manager: "tcp://10.9.0.2:2375",
      nodes: [{ name: "node1", endpoint: "tcp://10.9.0.2:2375" }],
      tlsDir: null,
      registry: null,
      machines: "auto",
    });
    const listed = await lab("engine", "list");
    expect(listed.stdout).toMatch(/^local\tdocker\t/);
    expect(listed.stdout).toContain(`${name}\tswarm\ttcp://10.9.0.2:2375\tnode1=tcp://10.9.0.2:2375`);

    await lab(
      "engine",
      "add",
      name,
      "--no-check",
      "--manager",
      "tcp://10.9.0.3:2375",
      "--node",
      "a=tcp://10.9.0.3:2375",
      "--node",
      "b=tcp://10.9.0.4:2375",
      "--registry-push",
      "127.0.0.1:5000",
      "--registry-pull",
      "10.9.0.1:5000",
      "--machines",
      "separate",
    );
    expect((await findEngine(db, name))?.config).toMatchObject({
      manager: "tcp://10.9.0.3:2375",
      registry: { push: "127.0.0.1:5000", pull: "10.9.0.1:5000" },
      machines: "separate",
    });
    const json = JSON.parse((await lab("engine", "list", "--json")).stdout) as { name: string; nodes: unknown[] }[];
    expect(json.find((e) => e.name === name)?.nodes).toHaveLength(2);

    expect(await lab("engine", "remove", name)).toMatchObject({ code: 0 });
    expect(await findEngine(db, name)).toBeNull();
    expect(await lab("engine", "remove", name)).toMatchObject({ code: 1, stderr: expect.stringContaining(`no engine named ${name}`) });
  });

  it("a manager that does not answer: stored, with a warning that the cluster was not asked", async () => {
    // A closed port on this machine: refused at once.
    const added = await lab("engine", "add", name, "--manager", "tcp://127.0.0.1:1", "--node", "node1=tcp://127.0.0.1:1");
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(
      /\[lab\] warning: not checked against the cluster: the manager tcp:\/\/127\.0\.0\.1:1 did not answer \(.*ECONNREFUSED.*\); saved as given, lab engine add again checks it/,
    );
    expect((await findEngine(db, name))?.config).toMatchObject({ manager: "tcp://127.0.0.1:1" });
    expect(await lab("engine", "remove", name)).toMatchObject({ code: 0 });
  });

  it("refuses a bad option with the option and its rule, storing nothing", async () => {
    const bad = await lab("engine", "add", name, "--manager", "http://10.9.0.2:2375", "--node", "node1=tcp://10.9.0.2:2375");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--manager: manager must be a Docker endpoint tcp://HOST:PORT");
    expect(await findEngine(db, name)).toBeNull();
  });
});
