import { createHash } from "node:crypto";
import { z } from "zod";

const ZEnv = z.object({
  DATABASE_URL: z.string().startsWith("postgres", { error: "DATABASE_URL must be a postgresql:// URL" }),
  REDIS_URL: z.string().startsWith("redis", { error: "REDIS_URL must be a redis:// URL" }),
  SCALELAB_DOCKER_SOCKET: z.string().default("/var/run/docker.sock"),
  /** Labels this control plane's Docker objects; defaults to a hash of the database's address. */
  SCALELAB_INSTANCE: z
    .string()
    .regex(/^[a-z0-9-]{1,64}$/, { error: "SCALELAB_INSTANCE must be 1–64 lowercase letters, digits or hyphens" })
    .optional(),
});
export type Env = z.infer<typeof ZEnv>;

/** The worker's configuration; throws one readable message naming every missing or bad variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const r = ZEnv.safeParse(source);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `  ${i.path.join(".")}: ${i.code === "invalid_type" ? "is required" : i.message}`);
  throw new Error(`invalid worker environment:\n${lines.join("\n")}`);
}

/** The control plane's id: two workers sharing a Docker host but not a database never sweep each other's runs. */
export function instanceId(env: Env): string {
  if (env.SCALELAB_INSTANCE) return env.SCALELAB_INSTANCE;
  const url = new URL(env.DATABASE_URL);
  const where = `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  return createHash("sha256").update(where).digest("hex").slice(0, 12);
}

/** The environment handed on to a child process unchanged (a worker a test starts and kills). */
export const inheritedEnv = (): NodeJS.ProcessEnv => ({ ...process.env });
