import Docker from "dockerode";
import { Redis } from "ioredis";
import pg from "pg";
import { ensureControlPlaneImages, type ImageProgress } from "@scalelab/images";

export const CONTROL_PLANE_LABEL = "scalelab.controlplane";

const POSTGRES = { name: "scalelab-postgres", port: 55432, user: "scalelab", password: "scalelab", volume: "scalelab-pgdata" };
const REDIS = { name: "scalelab-redis", port: 56379 };

export type ControlPlane = { databaseUrl: string; redisUrl: string };

type Log = (line: string) => void;

async function ensureContainer(docker: Docker, log: Log, name: string, image: string, spec: Docker.ContainerCreateOptions) {
  const existing = docker.getContainer(name);
  const info = await existing.inspect().catch(() => undefined);
  if (info && info.Config.Image !== image) {
    log(`${name}: image changed, recreating (data volume kept)`);
    await existing.remove({ force: true });
  } else if (info) {
    if (!info.State.Running) await existing.start();
    return;
  }
  const c = await docker.createContainer({
    name,
    Image: image,
    Labels: { [CONTROL_PLANE_LABEL]: "true" },
    ...spec,
    HostConfig: { RestartPolicy: { Name: "unless-stopped" }, ...spec.HostConfig },
  });
  await c.start();
  log(`${name}: started`);
}

async function retry<T>(what: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      return await fn();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s: ${(last as Error)?.message ?? last}`);
}

/**
 * Starts (or reuses) the control plane's Postgres and Redis as containers published on
 * 127.0.0.1, waits until both answer and makes sure `database` exists.
 */
export async function controlPlaneUp(
  docker: Docker,
  opts: { database: string; redisDb: number; fresh?: boolean; log: Log },
): Promise<ControlPlane> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(opts.database)) throw new Error(`database name must match [a-z_][a-z0-9_]*: ${opts.database}`);
  const images = await ensureControlPlaneImages(docker, {
    onProgress: (p: ImageProgress) => p.phase !== "cached" && opts.log(`image ${p.image}: ${p.message}`),
  });
  await ensureContainer(docker, opts.log, POSTGRES.name, images.postgres, {
    Env: [`POSTGRES_USER=${POSTGRES.user}`, `POSTGRES_PASSWORD=${POSTGRES.password}`, `POSTGRES_DB=scalelab`],
    ExposedPorts: { "5432/tcp": {} },
    HostConfig: {
      PortBindings: { "5432/tcp": [{ HostIp: "127.0.0.1", HostPort: String(POSTGRES.port) }] },
      Binds: [`${POSTGRES.volume}:/var/lib/postgresql/data`],
    },
  });
  await ensureContainer(docker, opts.log, REDIS.name, images.redis, {
    ExposedPorts: { "6379/tcp": {} },
    HostConfig: { PortBindings: { "6379/tcp": [{ HostIp: "127.0.0.1", HostPort: String(REDIS.port) }] } },
  });

  const admin = `postgresql://${POSTGRES.user}:${POSTGRES.password}@127.0.0.1:${POSTGRES.port}`;
  await retry("postgres", 60_000, async () => {
    const c = new pg.Client({ connectionString: `${admin}/scalelab` });
    await c.connect();
    try {
      if (opts.fresh && opts.database !== "scalelab") await c.query(`DROP DATABASE IF EXISTS "${opts.database}" WITH (FORCE)`);
      const exists = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [opts.database]);
      if (exists.rowCount === 0) await c.query(`CREATE DATABASE "${opts.database}"`);
    } finally {
      await c.end();
    }
  });
  const redisUrl = `redis://127.0.0.1:${REDIS.port}/${opts.redisDb}`;
  await retry("redis", 30_000, async () => {
    const r = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await r.connect();
      await r.ping();
      if (opts.fresh) await r.flushdb();
    } finally {
      r.disconnect();
    }
  });
  return { databaseUrl: `${admin}/${opts.database}`, redisUrl };
}

export async function controlPlaneDown(docker: Docker, log: Log): Promise<void> {
  for (const name of [POSTGRES.name, REDIS.name]) {
    const c = docker.getContainer(name);
    const info = await c.inspect().catch(() => undefined);
    if (info?.State.Running) {
      await c.stop({ t: 10 });
      log(`${name}: stopped (data kept in volume ${POSTGRES.volume})`);
    }
  }
}
