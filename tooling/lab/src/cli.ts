import { writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import Docker from "dockerode";
import { migrate } from "@scalelab/db/migrate";
import { controlPlaneDown, controlPlaneUp } from "./control-plane";
import { env } from "./env";

const usage = `usage:
  lab control-plane up [--database NAME] [--redis-db N] [--fresh] [--write-env FILE]
  lab control-plane down
  lab migrate            (DATABASE_URL from the environment)`;

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

if (cmd === "control-plane up") {
  const cp = await controlPlaneUp(docker, {
    database: values.database!,
    redisDb: Number(values["redis-db"]),
    fresh: values.fresh,
    log,
  });
  const { applied } = await migrate(cp.databaseUrl);
  log(`database ${values.database}: ${applied.length ? `applied ${applied.join(", ")}` : "schema up to date"}`);
  const text = `DATABASE_URL=${cp.databaseUrl}\nREDIS_URL=${cp.redisUrl}\n`;
  if (values["write-env"]) {
    mkdirSync(dirname(values["write-env"]), { recursive: true });
    writeFileSync(values["write-env"], text);
  } else {
    process.stdout.write(text);
  }
} else if (cmd === "control-plane down") {
  await controlPlaneDown(docker, log);
} else if (cmd === "migrate") {
  const url = env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  const { applied } = await migrate(url);
  log(applied.length ? `applied ${applied.join(", ")}` : "schema up to date");
} else {
  console.error(usage);
  process.exit(2);
}
