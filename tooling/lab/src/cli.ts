import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import Docker from "dockerode";
import { createDb } from "@scalelab/db";
import { migrate } from "@scalelab/db/migrate";
import { createApiToken } from "@scalelab/db/tokens";
import { listEngines, removeEngine, saveEngine } from "@scalelab/db/engines";
import { ZEngineConfig, ZEngineName } from "@scalelab/scenarios/contract";
import { ZTokenName } from "@scalelab/scenarios/contract";
import { DEFAULT_CONTROL_PLANE, controlPlaneDown, controlPlaneUp, writePrivateFile, type ControlPlaneConfig } from "./control-plane";
import { checkEngine, engineFromArgs } from "./engines";
import { env } from "./env";
import { labDatabaseUrl } from "./tokens";

const usage = `usage:
  lab control-plane up [--database NAME] [--redis-db N] [--fresh] [--write-env FILE]
  lab control-plane down
  lab migrate            (DATABASE_URL from the environment)
  lab token create NAME  an API token, printed once (DATABASE_URL, else the lab's own from scripts/up.sh)
  lab engine add NAME --manager tcp://HOST:PORT [--node NAME=tcp://HOST:PORT …] [--tls-dir DIR]
                 [--registry-push HOST:PORT --registry-pull HOST:PORT] [--machines auto|shared|separate] [--no-check]
                         a Docker Swarm cluster runs can name (an existing NAME is replaced);
                         checked first: each --node a node of the manager's swarm, its endpoint that
                         node's own engine (--no-check: stored as given, the cluster not asked);
                         --machines: the nodes run on this machine (shared) or each on its own
                         (separate: host noise is read on each node); auto (default) decides by the endpoints
  lab engine remove NAME
  lab engine list [--json]`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    database: { type: "string", default: "scalelab" },
    "redis-db": { type: "string", default: "0" },
    fresh: { type: "boolean", default: false },
    "write-env": { type: "string" },
    manager: { type: "string" },
    node: { type: "string", multiple: true },
    "tls-dir": { type: "string" },
    "registry-push": { type: "string" },
    "registry-pull": { type: "string" },
    machines: { type: "string" },
    "no-check": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

const log = (line: string) => console.error(`[lab] ${line}`);
const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
const cmd = positionals.join(" ");
const config: ControlPlaneConfig = {
  prefix: env.SCALELAB_CONTROL_PLANE_PREFIX,
  postgresPort: env.SCALELAB_CONTROL_PLANE_POSTGRES_PORT,
  redisPort: env.SCALELAB_CONTROL_PLANE_REDIS_PORT,
  stateDir: env.SCALELAB_STATE_DIR,
  // Another control plane than the lab's (a test's) carries its instance's label, so it can be swept.
  labels:
    env.SCALELAB_CONTROL_PLANE_PREFIX !== DEFAULT_CONTROL_PLANE.prefix && env.SCALELAB_INSTANCE
      ? { "scalelab.instance": env.SCALELAB_INSTANCE }
      : {},
};

if (cmd === "control-plane up") {
  const redisDb = values["redis-db"]!;
  if (!/^(?:[0-9]|1[0-5])$/.test(redisDb)) {
    console.error(`--redis-db must be an integer 0–15, got ${redisDb}`);
    process.exit(2);
  }
  const cp = await controlPlaneUp(docker, config, {
    database: values.database!,
    redisDb: Number(redisDb),
    fresh: values.fresh,
    log,
  });
  // Migrations run as the app role, which owns the database.
  const { applied } = await migrate(cp.databaseUrl);
  log(`database ${values.database}: ${applied.length ? `applied ${applied.join(", ")}` : "schema up to date"}`);
  const text = `DATABASE_URL=${cp.databaseUrl}\nREDIS_URL=${cp.redisUrl}\n`;
  if (values["write-env"]) {
    // The URLs carry the app role's and Redis's passwords: only the owner may read the file.
    mkdirSync(dirname(values["write-env"]), { recursive: true });
    writePrivateFile(values["write-env"], text);
  } else {
    process.stdout.write(text);
  }
} else if (cmd === "control-plane down") {
  await controlPlaneDown(docker, config, log);
} else if (cmd === "migrate") {
  const url = env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  const { applied } = await migrate(url);
  log(applied.length ? `applied ${applied.join(", ")}` : "schema up to date");
} else if (positionals[0] === "token" && positionals[1] === "create" && positionals.length === 3) {
  const name = ZTokenName.safeParse(positionals[2]);
  if (!name.success) {
    console.error(name.error.issues[0]!.message);
    process.exit(2);
  }
  const db = createDb(labDatabaseUrl(env.DATABASE_URL, env.SCALELAB_STATE_DIR), { max: 1 });
  try {
    const { token, info } = await createApiToken(db, name.data);
    log(`token "${info.name}" (${info.prefix}…, id ${info.id}): shown this once, only its hash is stored`);
    process.stdout.write(`${token}\n`);
  } finally {
    await db.$disconnect();
  }
} else if (positionals[0] === "engine" && positionals[1] === "add" && positionals.length === 3) {
  const r = engineFromArgs({ ...values, name: positionals[2] });
  if (!r.ok) {
    for (const e of r.errors) console.error(e);
    process.exit(2);
  }
  if (!values["no-check"]) {
    const check = await checkEngine(r.config);
    for (const w of check.warnings) log(`warning: ${w}`);
    if (check.errors.length > 0) {
      for (const e of check.errors) console.error(e);
      console.error(`engine ${r.config.name} not stored (--no-check stores it without asking the cluster)`);
      process.exit(2);
    }
  }
  await withLabDb(async (db) => {
    await saveEngine(db, r.config.name, r.config.kind, r.config);
    log(
      `engine ${r.config.name}: ${r.config.kind}, manager ${r.config.manager}, ${r.config.nodes.length} node(s) ${r.config.nodes.map((n) => n.name).join(", ")}, machines ${r.config.machines}`,
    );
  });
} else if (positionals[0] === "engine" && positionals[1] === "remove" && positionals.length === 3) {
  const name = ZEngineName.safeParse(positionals[2]);
  if (!name.success) {
    console.error(name.error.issues[0]!.message);
    process.exit(2);
  }
  const removed = await withLabDb((db) => removeEngine(db, name.data));
  if (!removed) {
    console.error(`no engine named ${name.data} (lab engine list)`);
    process.exit(1);
  }
  log(`engine ${name.data} removed`);
} else if (cmd === "engine list") {
  const rows = await withLabDb((db) => listEngines(db));
  const engines = rows.map((r) => {
    const c = ZEngineConfig.safeParse(r.config);
    return c.success ? c.data : { name: r.name, kind: r.kind, invalid: c.error.issues[0]!.message };
  });
  if (values.json) process.stdout.write(`${JSON.stringify(engines, null, 2)}\n`);
  else {
    process.stdout.write("local\tdocker\tthe lab's own engine\n");
    for (const e of engines) {
      process.stdout.write(
        "invalid" in e
          ? `${e.name}\t${e.kind}\tinvalid config: ${e.invalid}\n`
          : `${e.name}\t${e.kind}\t${e.manager}\t${e.nodes.map((n) => `${n.name}=${n.endpoint}`).join(" ")}${e.tlsDir ? `\ttls ${e.tlsDir}` : ""}${e.registry ? `\tregistry ${e.registry.push} → ${e.registry.pull}` : ""}\n`,
      );
    }
  }
} else {
  console.error(usage);
  process.exit(2);
}

async function withLabDb<T>(f: (db: ReturnType<typeof createDb>) => Promise<T>): Promise<T> {
  const db = createDb(labDatabaseUrl(env.DATABASE_URL, env.SCALELAB_STATE_DIR), { max: 1 });
  try {
    return await f(db);
  } finally {
    await db.$disconnect();
  }
}
