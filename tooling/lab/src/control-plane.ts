import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { Redis } from "ioredis";
import pg from "pg";
import { ensureControlPlaneImages, type ImageProgress } from "@scalelab/images";
import { generatePassword, generateSecrets, parseSecrets, postgresUrl, redisUrl, type ControlPlaneSecrets } from "./secrets";

export const CONTROL_PLANE_LABEL = "scalelab.controlplane";

/**
 * The roles of the control plane's Postgres. The applications (web, worker, migrations) connect as
 * APP_ROLE, which owns the lab's databases and nothing more: no superuser, no CREATEROLE, no
 * CREATEDB. The lab administers (creates the role, creates and drops databases) as ADMIN_ROLE.
 */
export const ADMIN_ROLE = "scalelab_admin";
export const APP_ROLE = "scalelab";

const PGDATA = "/var/lib/postgresql/data";
/** The secrets' copy every checkout can read back through the engine (Postgres's volume, mode 0600, owner postgres). */
const SECRETS_IN_VOLUME = `${PGDATA}/scalelab-secrets.json`;
const HOST = "127.0.0.1";

/** Where the control plane runs. The lab's defaults come from env.ts; tests use their own. */
export type ControlPlaneConfig = {
  /** Containers `<prefix>-postgres` and `<prefix>-redis`, volume `<prefix>-pgdata`. */
  prefix: string;
  /** Host ports on 127.0.0.1 for a container being created (0: one the engine picks); a running one keeps its own. */
  postgresPort: number;
  redisPort: number;
  /** The lab's state directory (`.scalelab/`), where this checkout keeps the secrets (mode 0600). */
  stateDir: string;
  /** Extra labels on the containers and the volume (tests label theirs with scalelab.instance). */
  labels?: Record<string, string>;
};

export const DEFAULT_CONTROL_PLANE = { prefix: "scalelab", postgresPort: 55432, redisPort: 56379 } as const;

export const containerNames = (prefix: string) => ({
  postgres: `${prefix}-postgres`,
  redis: `${prefix}-redis`,
  volume: `${prefix}-pgdata`,
});

export const secretsPath = (config: Pick<ControlPlaneConfig, "prefix" | "stateDir">) =>
  join(config.stateDir, `control-plane-${config.prefix}.secrets.json`);

export type ControlPlane = { databaseUrl: string; redisUrl: string; postgresPort: number; redisPort: number };

type Log = (line: string) => void;

/** Replaces every secret in `text` (an error or a command's output) before it is shown. */
function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, s) => (s ? t.split(s).join("***") : t), text);
}

/** Runs `cmd` in the container; secrets go in through `env` (never argv: argv shows in the host's `ps`). */
async function execIn(
  docker: Docker,
  container: Docker.Container,
  cmd: string[],
  opts: { user?: string; env?: Record<string, string> } = {},
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const exec = await container.exec({
    Cmd: cmd,
    AttachStdout: true,
    AttachStderr: true,
    User: opts.user ?? "",
    Env: Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`),
  });
  const stream = await exec.start({});
  const out = new PassThrough();
  const err = new PassThrough();
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  out.on("data", (c: Buffer) => o.push(c));
  err.on("data", (c: Buffer) => e.push(c));
  docker.modem.demuxStream(stream, out, err);
  await new Promise((resolve, reject) => {
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  return { exitCode: (await exec.inspect()).ExitCode, stdout: Buffer.concat(o).toString(), stderr: Buffer.concat(e).toString() };
}

const loopbackOnly = (info: Docker.ContainerInspectInfo) =>
  Object.values(info.HostConfig.PortBindings ?? {}).every((bindings) =>
    ((bindings ?? []) as { HostIp?: string }[]).every((b) => b.HostIp === HOST),
  );

/** The host port a running container publishes `port` on. */
function publishedPort(info: Docker.ContainerInspectInfo, port: string): number {
  const hostPort = info.NetworkSettings.Ports?.[port]?.[0]?.HostPort;
  if (!hostPort) throw new Error(`${info.Name.slice(1)} publishes no host port for ${port}`);
  return Number(hostPort);
}

/**
 * Creates and starts the container, or starts an existing one; recreates it when its image changed
 * or `recreate` gives a reason. Returns its inspect info once running.
 */
async function ensureContainer(
  docker: Docker,
  log: Log,
  name: string,
  image: string,
  spec: Docker.ContainerCreateOptions,
  labels: Record<string, string>,
  recreate: (info: Docker.ContainerInspectInfo) => string | undefined = () => undefined,
): Promise<Docker.ContainerInspectInfo> {
  const existing = docker.getContainer(name);
  const info = await existing.inspect().catch(() => undefined);
  const reason = !info
    ? undefined
    : info.Config.Image !== image
      ? "image changed"
      : !loopbackOnly(info)
        ? "it published a port beyond 127.0.0.1"
        : recreate(info);
  if (info && reason) {
    log(`${name}: ${reason}, recreating (data volume kept)`);
    await existing.remove({ force: true });
  } else if (info) {
    if (!info.State.Running) await existing.start();
    return existing.inspect();
  }
  const c = await docker.createContainer({
    name,
    Image: image,
    Labels: { [CONTROL_PLANE_LABEL]: "true", ...labels },
    ...spec,
    HostConfig: { RestartPolicy: { Name: "unless-stopped" }, ...spec.HostConfig },
  });
  await c.start();
  log(`${name}: started`);
  return c.inspect();
}

async function retry<T>(what: string, timeoutMs: number, fn: () => Promise<T>, secrets: readonly string[] = []): Promise<T> {
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
  const message = redact(String((last as Error)?.message ?? last), secrets);
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s: ${message}`);
}

const envOf = (info: Docker.ContainerInspectInfo, name: string) =>
  (info.Config.Env ?? []).find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);

/** psql over the container's Unix socket, where the image trusts local connections (no password). */
const psqlLocal = (user: string, vars: Record<string, string> = {}) => [
  "sh",
  "-c",
  // The script comes in through the environment (SL_SQL), so neither it nor what it reads shows in argv.
  'printf "%s\\n" "$SL_SQL" | exec psql -X -q -v ON_ERROR_STOP=1 -tA -h /var/run/postgresql -d postgres -U "$0" "$@" -f -',
  user,
  ...Object.entries(vars).flatMap(([k, v]) => ["-v", `${k}=${v}`]),
];

/** The first of `candidates` that is a superuser, asked over the trusted local socket. */
async function findSuperuser(docker: Docker, c: Docker.Container, candidates: string[]): Promise<string> {
  const tried: string[] = [];
  for (const user of candidates) {
    const r = await execIn(docker, c, psqlLocal(user), {
      user: "postgres",
      env: { SL_SQL: "SELECT rolsuper FROM pg_roles WHERE rolname = current_user;" },
    });
    if (r.exitCode === 0 && r.stdout.trim() === "t") return user;
    tried.push(`${user}: ${r.exitCode === 0 ? "not a superuser" : r.stderr.trim().split("\n")[0]}`);
  }
  throw new Error(`no superuser to administer the control plane's Postgres with (${tried.join("; ")})`);
}

async function readVolumeSecrets(docker: Docker, c: Docker.Container, name: string): Promise<ControlPlaneSecrets | undefined> {
  const r = await execIn(docker, c, ["sh", "-c", 'test -e "$0" || exit 3; cat "$0"', SECRETS_IN_VOLUME], { user: "postgres" });
  if (r.exitCode === 3) return undefined;
  if (r.exitCode !== 0) throw new Error(`${name}: reading ${SECRETS_IN_VOLUME} failed: ${r.stderr.trim()}`);
  return parseSecrets(r.stdout, `${name}:${SECRETS_IN_VOLUME}`);
}

async function writeVolumeSecrets(docker: Docker, c: Docker.Container, name: string, secrets: ControlPlaneSecrets): Promise<void> {
  const r = await execIn(
    docker,
    c,
    ["sh", "-c", 'umask 077 && printf "%s" "$SL_SECRETS" > "$0.tmp" && mv "$0.tmp" "$0"', SECRETS_IN_VOLUME],
    {
      user: "postgres",
      env: { SL_SECRETS: JSON.stringify(secrets) },
    },
  );
  if (r.exitCode !== 0) throw new Error(`${name}: writing ${SECRETS_IN_VOLUME} failed: ${r.stderr.trim()}`);
}

function readLocalSecrets(path: string): ControlPlaneSecrets | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  return parseSecrets(text, path);
}

/** Writes a file only its owner can read, also when it existed with wider permissions. */
export function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/**
 * Creates the admin role (a superuser with the generated password), then makes the app role an
 * ordinary login role that owns the lab's databases. Idempotent; on a Postgres made before the
 * roles were split (where the app role was the superuser) this is the upgrade. The passwords come
 * in through psql's \getenv, never on a command line.
 */
const CONVERGE_ROLES = `
\\getenv admin_pw SL_ADMIN_PW
\\getenv app_pw SL_APP_PW
SELECT format('CREATE ROLE %I', :'admin') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'admin') \\gexec
ALTER ROLE :"admin" WITH LOGIN SUPERUSER CREATEDB CREATEROLE PASSWORD :'admin_pw';
SELECT format('CREATE ROLE %I', :'app') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app') \\gexec
ALTER ROLE :"app" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'app_pw';
`;

/**
 * Starts (or reuses, or upgrades) the control plane's Postgres and Redis as containers published on
 * 127.0.0.1 only, with generated secrets; waits until both answer and makes sure `database` exists,
 * owned by the app role.
 */
export async function controlPlaneUp(
  docker: Docker,
  config: ControlPlaneConfig,
  opts: { database: string; redisDb: number; fresh?: boolean; log: Log },
): Promise<ControlPlane> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(opts.database)) throw new Error(`database name must match [a-z_][a-z0-9_]*: ${opts.database}`);
  if (!/^[a-z][a-z0-9-]{0,40}$/.test(config.prefix)) throw new Error(`container prefix must match [a-z][a-z0-9-]*: ${config.prefix}`);
  const names = containerNames(config.prefix);
  const labels = config.labels ?? {};
  const images = await ensureControlPlaneImages(docker, {
    onProgress: (p: ImageProgress) => p.phase !== "cached" && opts.log(`image ${p.image}: ${p.message}`),
  });

  await docker
    .getVolume(names.volume)
    .inspect()
    .catch(() => docker.createVolume({ Name: names.volume, Labels: { [CONTROL_PLANE_LABEL]: "true", ...labels } }));
  const pgInfo = await ensureContainer(
    docker,
    opts.log,
    names.postgres,
    images.postgres,
    {
      // The initial superuser's password is thrown away: the lab sets the admin role's own below.
      Env: [`POSTGRES_USER=${ADMIN_ROLE}`, `POSTGRES_PASSWORD=${generatePassword()}`, "POSTGRES_DB=postgres"],
      ExposedPorts: { "5432/tcp": {} },
      HostConfig: {
        PortBindings: { "5432/tcp": [{ HostIp: HOST, HostPort: config.postgresPort ? String(config.postgresPort) : "" }] },
        Binds: [`${names.volume}:${PGDATA}`],
      },
    },
    labels,
  );
  const pgc = docker.getContainer(names.postgres);
  const postgresPort = publishedPort(pgInfo, "5432/tcp");

  // Ready once it listens on TCP (while initialising, the image's server listens on its socket only).
  await retry("postgres", 60_000, async () => {
    const r = await execIn(docker, pgc, ["pg_isready", "-q", "-h", HOST, "-p", "5432"], { user: "postgres" });
    if (r.exitCode !== 0) throw new Error(`pg_isready exited ${r.exitCode}`);
  });
  const superuser = await findSuperuser(docker, pgc, [...new Set([ADMIN_ROLE, envOf(pgInfo, "POSTGRES_USER") ?? APP_ROLE, APP_ROLE])]);

  // The secrets: the volume's copy wins (another checkout may have made them), else this
  // checkout's, else new ones; both copies are brought in line.
  const localPath = secretsPath(config);
  const inVolume = await readVolumeSecrets(docker, pgc, names.postgres);
  const local = readLocalSecrets(localPath);
  const secrets = inVolume ?? local ?? generateSecrets();
  if (!inVolume) await writeVolumeSecrets(docker, pgc, names.postgres, secrets);
  if (JSON.stringify(local) !== JSON.stringify(secrets)) {
    mkdirSync(config.stateDir, { recursive: true });
    writePrivateFile(localPath, `${JSON.stringify(secrets, null, 2)}\n`);
    opts.log(`secrets: ${inVolume ? "taken from the control plane's volume" : local ? "kept" : "generated"}, in ${localPath} (mode 0600)`);
  }
  const hide = [secrets.postgresAdminPassword, secrets.postgresAppPassword, secrets.redisPassword];

  const converged = await execIn(docker, pgc, psqlLocal(superuser, { admin: ADMIN_ROLE, app: APP_ROLE }), {
    user: "postgres",
    env: { SL_SQL: CONVERGE_ROLES, SL_ADMIN_PW: secrets.postgresAdminPassword, SL_APP_PW: secrets.postgresAppPassword },
  });
  if (converged.exitCode !== 0) throw new Error(`${names.postgres}: setting up the roles failed: ${redact(converged.stderr.trim(), hide)}`);
  if (superuser !== ADMIN_ROLE) opts.log(`${names.postgres}: upgraded: ${ADMIN_ROLE} administers, ${APP_ROLE} is no longer a superuser`);

  // Administration over TCP as the admin role, with its password: the lab's databases, owned by the app role.
  const adminUrl = postgresUrl({
    user: ADMIN_ROLE,
    password: secrets.postgresAdminPassword,
    host: HOST,
    port: postgresPort,
    database: "postgres",
  });
  await retry(
    "postgres",
    30_000,
    async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        if (opts.fresh && opts.database !== "scalelab") await c.query(`DROP DATABASE IF EXISTS "${opts.database}" WITH (FORCE)`);
        const { rows } = await c.query<{ owner: string }>("SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1", [
          opts.database,
        ]);
        if (rows.length === 0) await c.query(`CREATE DATABASE "${opts.database}" OWNER "${APP_ROLE}"`);
        else if (rows[0]!.owner !== APP_ROLE) await c.query(`ALTER DATABASE "${opts.database}" OWNER TO "${APP_ROLE}"`);
      } finally {
        await c.end();
      }
    },
    hide,
  );

  // Redis made without a password (before the upgrade): it is recreated, and it keeps no data across
  // that, so it must hold no queued or running job.
  const oldRedis = await docker
    .getContainer(names.redis)
    .inspect()
    .catch(() => undefined);
  if (oldRedis?.State.Running && envOf(oldRedis, "REDIS_PASSWORD") === undefined) {
    const pending = await pendingJobs(publishedPort(oldRedis, "6379/tcp")).catch(() => []);
    if (pending.length > 0)
      throw new Error(
        `${names.redis} gets a password, which recreates it, and it keeps no data: it holds queued or running jobs ` +
          `(${pending.join(", ")}); let them finish or cancel them, then run this again`,
      );
  }

  // Redis: the password reaches redis-server as a config line on its stdin, so it is not in its argv.
  const redisInfo = await ensureContainer(
    docker,
    opts.log,
    names.redis,
    images.redis,
    {
      Env: [`REDIS_PASSWORD=${secrets.redisPassword}`],
      Cmd: [
        "sh",
        "-c",
        'exec redis-server --bind 0.0.0.0 --protected-mode no --save "" --appendonly no - <<EOF\nrequirepass $REDIS_PASSWORD\nEOF\n',
      ],
      Healthcheck: {
        Test: ["CMD-SHELL", 'REDISCLI_AUTH="$REDIS_PASSWORD" redis-cli ping | grep -q PONG'],
        Interval: 5e9,
        Timeout: 3e9,
        Retries: 5,
      },
      ExposedPorts: { "6379/tcp": {} },
      HostConfig: { PortBindings: { "6379/tcp": [{ HostIp: HOST, HostPort: config.redisPort ? String(config.redisPort) : "" }] } },
    },
    labels,
    (info) => (envOf(info, "REDIS_PASSWORD") === secrets.redisPassword ? undefined : "no password or another one"),
  );
  const redisPort = publishedPort(redisInfo, "6379/tcp");
  const url = redisUrl({ password: secrets.redisPassword, host: HOST, port: redisPort, db: opts.redisDb });
  await retry(
    "redis",
    30_000,
    async () => {
      const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
      r.on("error", () => undefined); // connect() and ping() reject with it; retry() reports the last
      try {
        await r.connect();
        await r.ping();
        if (opts.fresh) await r.flushdb();
      } finally {
        r.disconnect();
      }
    },
    hide,
  );
  return {
    databaseUrl: postgresUrl({
      user: APP_ROLE,
      password: secrets.postgresAppPassword,
      host: HOST,
      port: postgresPort,
      database: opts.database,
    }),
    redisUrl: url,
    postgresPort,
    redisPort,
  };
}

/** BullMQ's jobs that are not finished, as `db<N> <key>: <count>`, in a Redis without a password. */
async function pendingJobs(port: number): Promise<string[]> {
  const r = new Redis({ host: HOST, port, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  r.on("error", () => undefined); // a failed command rejects; the event would only be logged
  try {
    await r.connect();
    const dbs = [...(await r.info("keyspace")).matchAll(/^db(\d+):/gm)].map((m) => Number(m[1]));
    const found: string[] = [];
    for (const db of dbs) {
      await r.select(db);
      let cursor = "0";
      do {
        const [next, keys] = await r.scan(cursor, "MATCH", "bull:*", "COUNT", 1000);
        cursor = next;
        for (const key of keys.filter((k) => /:(wait|active|delayed|prioritized|paused|waiting-children)$/.test(k))) {
          const type = await r.type(key);
          const n = type === "list" ? await r.llen(key) : type === "zset" ? await r.zcard(key) : 0;
          if (n > 0) found.push(`db${db} ${key}: ${n}`);
        }
      } while (cursor !== "0");
    }
    return found;
  } finally {
    r.disconnect();
  }
}

export async function controlPlaneDown(docker: Docker, config: Pick<ControlPlaneConfig, "prefix">, log: Log): Promise<void> {
  const names = containerNames(config.prefix);
  for (const name of [names.postgres, names.redis]) {
    const c = docker.getContainer(name);
    const info = await c.inspect().catch(() => undefined);
    if (info?.State.Running) {
      await c.stop({ t: 10 });
      log(`${name}: stopped${name === names.postgres ? ` (data kept in volume ${names.volume})` : ""}`);
    }
  }
}
