import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import Docker from "dockerode";
import { createDb } from "@scalelab/db";
import { migrate } from "@scalelab/db/migrate";
import { createApiToken } from "@scalelab/db/tokens";
import { ZTokenName } from "@scalelab/scenarios/contract";
import { DEFAULT_CONTROL_PLANE, controlPlaneDown, controlPlaneUp, writePrivateFile, type ControlPlaneConfig } from "./control-plane";
import { env } from "./env";
import { labDatabaseUrl } from "./tokens";

const usage = `usage:
  lab control-plane up [--database NAME] [--redis-db N] [--fresh] [--write-env FILE]
  lab control-plane down
  lab migrate            (DATABASE_URL from the environment)
  lab token create NAME  an API token, printed once (DATABASE_URL, else the lab's own from scripts/up.sh)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    database: { type: "string", default: "scalelab" },
    "redis-db": { type: "string", default: "0" },
    fresh: { type: "boolean", default: false },
    "write-env": { type: "string" },
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
} else {
  console.error(usage);
  process.exit(2);
}
