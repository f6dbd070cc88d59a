import { fileURLToPath } from "node:url";
import { z } from "zod";

const port = (name: string, fallback: number) =>
  z.coerce
    .number()
    .int({ error: `${name} must be an integer port 0–65535 (0: the engine picks one)` })
    .min(0, { error: `${name} must be 0–65535` })
    .max(65535, { error: `${name} must be 0–65535` })
    .default(fallback);

const ZEnv = z.object({
  SCALELAB_DOCKER_SOCKET: z.string().default("/var/run/docker.sock"),
  DATABASE_URL: z.string().startsWith("postgres", { error: "DATABASE_URL must be a postgresql:// URL" }).optional(),
  /** The lab's state directory (secrets, env files); the checkout's `.scalelab/` unless given. */
  SCALELAB_STATE_DIR: z
    .string()
    .min(1)
    .default(fileURLToPath(new URL("../../../.scalelab", import.meta.url))),
  /**
   * Another control plane beside the lab's (tests): container and volume name prefix, and the
   * host ports its containers are created with.
   */
  SCALELAB_CONTROL_PLANE_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,40}$/, { error: "SCALELAB_CONTROL_PLANE_PREFIX must match [a-z][a-z0-9-]{0,40}" })
    .default("scalelab"),
  SCALELAB_CONTROL_PLANE_POSTGRES_PORT: port("SCALELAB_CONTROL_PLANE_POSTGRES_PORT", 55432),
  SCALELAB_CONTROL_PLANE_REDIS_PORT: port("SCALELAB_CONTROL_PLANE_REDIS_PORT", 56379),
  /** Integration tests: the label their Docker objects carry. */
  SCALELAB_INSTANCE: z.string().optional(),
});

/** The lab CLI's environment; the only place it reads process.env. */
export const env = ZEnv.parse(process.env);
