import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createDb } from "@scalelab/db";
import { findEngine } from "@scalelab/db/engines";
import { ZEngineConfig } from "@scalelab/scenarios/contract";
import { afterAll, describe, expect, it } from "vitest";
import { env } from "./env";
import { lab } from "./testing";

/*
 * `lab engine add` checks a config against the cluster it names: the test Swarm cluster of
 * `bash scripts/swarm.sh up` (3 nodes; scripts/test.sh's Swarm step runs this file with it up).
 * No cluster, or no DATABASE_URL, fails the file, naming what is missing.
 */
const ENGINE_FILE = fileURLToPath(new URL("../../../.scalelab/engines/swarm-local.json", import.meta.url));
if (!existsSync(ENGINE_FILE)) throw new Error(`${ENGINE_FILE} is missing: start the test cluster with bash scripts/swarm.sh up`);
if (!env.DATABASE_URL) throw new Error("DATABASE_URL is not set: the lab's engine commands need the lab's database");
const cluster = ZEngineConfig.parse(JSON.parse(readFileSync(ENGINE_FILE, "utf8")));
const db = createDb(env.DATABASE_URL, { max: 1 });
const name = `it-check-${randomBytes(3).toString("hex")}`;
const node = (i: number) => cluster.nodes[i]!;
const add = (...nodes: string[]) => lab("engine", "add", name, "--manager", cluster.manager, ...nodes.flatMap((n) => ["--node", n]));

afterAll(async () => {
  await db.engine.deleteMany({ where: { name } });
  await db.$disconnect();
});

describe("lab engine add against the test cluster", () => {
  it("each node its own engine: stored; a node left out is said to take no containers", async () => {
    expect(cluster.nodes).toHaveLength(3);
    const added = await add(`${node(0).name}=${node(0).endpoint}`, `${node(1).name}=${node(1).endpoint}`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(
      `[lab] warning: node ${node(2).name} of the swarm has no --node endpoint: no run's containers are placed there`,
    );
    expect((await findEngine(db, name))?.config).toMatchObject({ nodes: cluster.nodes.slice(0, 2) });
  });

  it("a name the swarm does not have, and a node given another node's engine: refused, naming each, nothing stored", async () => {
    await db.engine.deleteMany({ where: { name } });
    const refused = await add(`${node(0).name}=${node(1).endpoint}`, `nodex=${node(2).endpoint}`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `--node ${node(0).name}=${node(1).endpoint}: that engine is node ${node(1).name}'s, not ${node(0).name}'s`,
    );
    const names = cluster.nodes
      .map((n) => n.name)
      .sort()
      .join(", ");
    expect(refused.stderr).toContain(`--node nodex: the swarm of ${cluster.manager} has no node of that name (its nodes: ${names})`);
    expect(refused.stderr).toContain(`engine ${name} not stored`);
    expect(await findEngine(db, name)).toBeNull();
  });

  it("a manager that is no swarm manager's engine: refused with the engine's own reason", async () => {
    // The lab's own engine is in no swarm: it answers, but cannot list a swarm's nodes.
    const refused = await lab(
      "engine",
      "add",
      name,
      "--manager",
      `unix://${env.SCALELAB_DOCKER_SOCKET}`,
      "--node",
      `${node(0).name}=${node(0).endpoint}`,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--manager unix:\/\/\S+: that engine cannot list a swarm's nodes: .*swarm/);
    expect(await findEngine(db, name)).toBeNull();
  });
});
