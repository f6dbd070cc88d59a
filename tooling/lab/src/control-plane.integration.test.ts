import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@scalelab/db/migrate";
import { ensureControlPlaneImages } from "@scalelab/images";
import {
  ADMIN_ROLE,
  APP_ROLE,
  CONTROL_PLANE_LABEL,
  containerNames,
  controlPlaneUp,
  secretsPath,
  type ControlPlane,
  type ControlPlaneConfig,
} from "./control-plane";
import { env } from "./env";
import { parseSecrets } from "./secrets";

/*
 * Against the real Docker engine: control planes of their own (containers `sltest-<run>-…`, ports
 * the engine picks, a state directory in /tmp, labelled with scalelab.instance), never the lab's.
 * Everything they create is removed afterwards.
 */
const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
const run = randomBytes(3).toString("hex");
const labels = { "scalelab.instance": env.SCALELAB_INSTANCE ?? "scalelab-lab-test" };
const prefixes = [`sltest-${run}-new`, `sltest-${run}-old`];
const dirs: string[] = [];
const lines: string[] = [];
const log = (line: string) => void lines.push(line);

const stateDir = () => {
  const d = mkdtempSync(join(tmpdir(), "sl-lab-state-"));
  dirs.push(d);
  return d;
};
const config = (prefix: string, dir = stateDir()): ControlPlaneConfig => ({ prefix, postgresPort: 0, redisPort: 0, stateDir: dir, labels });

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function redisPing(url: string): Promise<string> {
  // No ready check: without the password ioredis's INFO would fail first and close the connection,
  // and the PING's own answer is what the tests look at.
  const r = new Redis(url, { lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return await r.ping();
  } finally {
    r.disconnect();
  }
}

/** `fn`'s result once it stops throwing (a container starting), or its last error after 60 s. */
async function eventually<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((res) => setTimeout(res, 500));
    }
  }
}

const urlFor = (url: string, patch: { user?: string; password?: string; database?: string }) => {
  const u = new URL(url);
  if (patch.user !== undefined) u.username = patch.user;
  if (patch.password !== undefined) u.password = patch.password;
  if (patch.database !== undefined) u.pathname = `/${patch.database}`;
  return u.toString();
};

async function expectAppRole(cp: ControlPlane) {
  const role = await withClient(cp.databaseUrl, async (c) => {
    const { rows } = await c.query<{ user: string; rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean; owner: string }>(
      `SELECT current_user AS user, rolsuper, rolcreaterole, rolcreatedb,
              (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()) AS owner
         FROM pg_roles WHERE rolname = current_user`,
    );
    return rows[0];
  });
  expect(role).toEqual({ user: APP_ROLE, rolsuper: false, rolcreaterole: false, rolcreatedb: false, owner: APP_ROLE });
  await withClient(cp.databaseUrl, async (c) => {
    await expect(c.query(`CREATE ROLE sl_intruder_${run} LOGIN`)).rejects.toThrow(/permission denied to create role/);
    await expect(c.query(`CREATE DATABASE sl_other_${run}`)).rejects.toThrow(/permission denied to create database/);
    await expect(c.query(`ALTER ROLE ${APP_ROLE} SUPERUSER`)).rejects.toThrow(/must be superuser|permission denied/);
  });
}

async function expectRedisNeedsPassword(cp: ControlPlane) {
  const u = new URL(cp.redisUrl);
  await expect(redisPing(`redis://${u.host}/0`)).rejects.toThrow(/NOAUTH/);
  const r = new Redis(`redis://${u.host}/0`, { enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    await expect(r.auth("wrong-password-wrong-password-00")).rejects.toThrow(/WRONGPASS/);
    await expect(r.auth("scalelab")).rejects.toThrow(/WRONGPASS/);
  } finally {
    r.disconnect();
  }
  expect(await redisPing(cp.redisUrl)).toBe("PONG");
}

async function expectLoopbackOnly(prefix: string) {
  const names = containerNames(prefix);
  for (const name of [names.postgres, names.redis]) {
    const info = await docker.getContainer(name).inspect();
    const published = Object.values(info.NetworkSettings.Ports ?? {}).flatMap((b) => b ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const b of published) expect(b.HostIp, `${name} publishes on ${b.HostIp}:${b.HostPort}`).toBe("127.0.0.1");
  }
}

async function removeAll(prefix: string) {
  const names = containerNames(prefix);
  for (const name of [names.postgres, names.redis])
    await docker
      .getContainer(name)
      .remove({ force: true, v: true })
      .catch(() => undefined);
  await docker
    .getVolume(names.volume)
    .remove()
    .catch(() => undefined);
}

beforeAll(async () => {
  await docker.ping().catch((err: Error) => {
    throw new Error(`Docker is not reachable at ${env.SCALELAB_DOCKER_SOCKET}: ${err.message}`);
  });
  await ensureControlPlaneImages(docker);
});

afterAll(async () => {
  for (const p of prefixes) await removeAll(p);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("a new control plane", () => {
  const prefix = prefixes[0]!;
  const dir = stateDir();
  let cp: ControlPlane;

  beforeAll(async () => {
    cp = await controlPlaneUp(docker, config(prefix, dir), { database: "lab_new", redisDb: 3, log });
  });

  it("keeps generated secrets in the state directory, mode 0600, and in no output", () => {
    const path = secretsPath({ prefix, stateDir: dir });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const secrets = parseSecrets(readFileSync(path, "utf8"), path);
    expect(cp.databaseUrl).toBe(`postgresql://${APP_ROLE}:${secrets.postgresAppPassword}@127.0.0.1:${cp.postgresPort}/lab_new`);
    expect(cp.redisUrl).toBe(`redis://:${secrets.redisPassword}@127.0.0.1:${cp.redisPort}/3`);
    for (const s of Object.values(secrets)) expect(lines.join("\n")).not.toContain(s);
  });

  it("connects the applications as a role that owns its database and may not create roles or databases", async () => {
    await expectAppRole(cp);
    // Migrations run as that role.
    const { applied } = await migrate(cp.databaseUrl);
    expect(applied.length).toBeGreaterThan(0);
    await withClient(cp.databaseUrl, async (c) => {
      const { rows } = await c.query<{ owner: string }>(`SELECT tableowner AS owner FROM pg_tables WHERE tablename = 'runs'`);
      expect(rows).toEqual([{ owner: APP_ROLE }]);
    });
  });

  it("administers as a separate superuser with its own password; the documented password is refused", async () => {
    const secrets = parseSecrets(readFileSync(secretsPath({ prefix, stateDir: dir }), "utf8"), "secrets");
    const admin = urlFor(cp.databaseUrl, { user: ADMIN_ROLE, password: secrets.postgresAdminPassword, database: "postgres" });
    expect(
      await withClient(admin, async (c) => (await c.query("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).rows[0]),
    ).toEqual({
      rolsuper: true,
    });
    await expect(withClient(urlFor(cp.databaseUrl, { password: "scalelab" }), async () => undefined)).rejects.toThrow(
      /password authentication failed/,
    );
    await expect(withClient(urlFor(admin, { password: "scalelab" }), async () => undefined)).rejects.toThrow(
      /password authentication failed/,
    );
  });

  it("refuses Redis commands without the password (NOAUTH) and answers PONG with it", async () => {
    await expectRedisNeedsPassword(cp);
    // redis-server got its password on stdin, not in its argv (which the host's `ps` shows).
    const secrets = parseSecrets(readFileSync(secretsPath({ prefix, stateDir: dir }), "utf8"), "secrets");
    const top = await docker.getContainer(containerNames(prefix).redis).top({ ps_args: "-eo pid,args" });
    expect(top.Processes.flat().join(" ")).toContain("redis-server");
    expect(JSON.stringify(top)).not.toContain(secrets.redisPassword);
  });

  it("publishes both on 127.0.0.1 only", async () => {
    await expectLoopbackOnly(prefix);
  });

  it("gives another checkout (an empty state directory) the same secrets, so the first one's URLs keep working", async () => {
    const other = await controlPlaneUp(docker, config(prefix), { database: "lab_new", redisDb: 3, log });
    expect(other).toEqual(cp);
    await expectAppRole(cp);
    expect(await redisPing(cp.redisUrl)).toBe("PONG");
  });

  it("--fresh drops and recreates the database, still owned by the app role", async () => {
    const again = await controlPlaneUp(docker, config(prefix, dir), { database: "lab_new", redisDb: 3, fresh: true, log });
    expect(again).toEqual(cp);
    await withClient(cp.databaseUrl, async (c) => {
      expect((await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0]).toEqual({ n: 0 });
    });
    await expectAppRole(cp);
  });
});

describe("a control plane made before the roles were split", () => {
  const prefix = prefixes[1]!;
  const names = containerNames(prefix);
  let oldDb: string;
  let pgId: string;

  beforeAll(async () => {
    // As the lab made them until now: the app role is the superuser, with the documented password,
    // and Redis has no password.
    const images = await ensureControlPlaneImages(docker);
    await docker.createVolume({ Name: names.volume, Labels: { [CONTROL_PLANE_LABEL]: "true", ...labels } });
    const p = await docker.createContainer({
      name: names.postgres,
      Image: images.postgres,
      Labels: { [CONTROL_PLANE_LABEL]: "true", ...labels },
      Env: ["POSTGRES_USER=scalelab", "POSTGRES_PASSWORD=scalelab", "POSTGRES_DB=scalelab"],
      ExposedPorts: { "5432/tcp": {} },
      HostConfig: {
        PortBindings: { "5432/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }] },
        Binds: [`${names.volume}:/var/lib/postgresql/data`],
      },
    });
    await p.start();
    pgId = p.id;
    const r = await docker.createContainer({
      name: names.redis,
      Image: images.redis,
      Labels: { [CONTROL_PLANE_LABEL]: "true", ...labels },
      ExposedPorts: { "6379/tcp": {} },
      HostConfig: { PortBindings: { "6379/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }] } },
    });
    await r.start();
    const port = (await p.inspect()).NetworkSettings.Ports["5432/tcp"]![0]!.HostPort;
    const redisPort = (await r.inspect()).NetworkSettings.Ports["6379/tcp"]![0]!.HostPort;
    oldDb = `postgresql://scalelab:scalelab@127.0.0.1:${port}/lab_old`;
    await eventually(() => withClient(urlFor(oldDb, { database: "scalelab" }), (c) => c.query(`CREATE DATABASE lab_old`)));
    await withClient(oldDb, async (c) => {
      await c.query("CREATE TABLE kept (note text)");
      await c.query("INSERT INTO kept VALUES ('written before the upgrade')");
    });
    expect(await eventually(() => redisPing(`redis://127.0.0.1:${redisPort}/0`))).toBe("PONG");
  });

  it("is upgraded in place by up: the row written before is kept, read by the demoted app role", async () => {
    // Redis is recreated to get its password and keeps no data: not while it holds a queued job.
    const redisPort = (await docker.getContainer(names.redis).inspect()).NetworkSettings.Ports["6379/tcp"]![0]!.HostPort;
    const old = new Redis(`redis://127.0.0.1:${redisPort}/2`);
    old.on("error", () => undefined);
    try {
      await old.lpush("bull:runs:wait", "1");
      await expect(controlPlaneUp(docker, config(prefix), { database: "lab_old", redisDb: 0, log })).rejects.toThrow(
        /holds queued or running jobs \(db2 bull:runs:wait: 1\)/,
      );
      await old.del("bull:runs:wait");
    } finally {
      old.disconnect();
    }
    const cp = await controlPlaneUp(docker, config(prefix), { database: "lab_old", redisDb: 0, log });
    expect(lines.join("\n")).toContain(`${names.postgres}: upgraded`);
    expect((await docker.getContainer(names.postgres).inspect()).Id).toBe(pgId);
    await withClient(cp.databaseUrl, async (c) => {
      expect((await c.query("SELECT note FROM kept")).rows).toEqual([{ note: "written before the upgrade" }]);
    });
    await expectAppRole(cp);
    await expect(withClient(oldDb, async () => undefined)).rejects.toThrow(/password authentication failed/);
    // The owner's migrations still run.
    expect((await migrate(cp.databaseUrl)).applied.length).toBeGreaterThan(0);
    await expectRedisNeedsPassword(cp);
    await expectLoopbackOnly(prefix);
  });
});
