import { z } from "zod";

const ZEnv = z.object({
  SCALELAB_DOCKER_SOCKET: z.string().default("/var/run/docker.sock"),
  DATABASE_URL: z.string().startsWith("postgres", { error: "DATABASE_URL must be a postgresql:// URL" }).optional(),
});

/** The lab CLI's environment; the only place it reads process.env. */
export const env = ZEnv.parse(process.env);
