import { z } from "zod";

const ZEnv = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is required (postgresql://user:password@host:5432/db)" })
    .regex(/^postgres(ql)?:\/\//, { error: "DATABASE_URL must be a postgresql:// URL" }),
  REDIS_URL: z
    .string({ error: "REDIS_URL is required (redis://host:6379)" })
    .regex(/^rediss?:\/\//, { error: "REDIS_URL must be a redis:// URL" }),
});
export type Env = z.infer<typeof ZEnv>;

let parsed: Env | undefined;

/**
 * The only reader of process.env. Parsed on first use rather than on import so that
 * `next build` does not need a database; src/instrumentation.ts calls it at server start.
 */
export function getEnv(): Env {
  if (parsed) return parsed;
  const r = ZEnv.safeParse({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL });
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  - ${i.message}`).join("\n");
    throw new Error(`scalelab web: invalid environment\n${lines}`);
  }
  parsed = r.data;
  return parsed;
}

/** The runtime Next.js runs this code in: "nodejs" or "edge" (set by Next.js). */
export function nextRuntime(): string | undefined {
  return process.env.NEXT_RUNTIME;
}
