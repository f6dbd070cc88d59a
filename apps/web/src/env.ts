import { z } from "zod";

/** A number of hours above 0 (decimals allowed: 0.5 is half an hour), at most a year. */
const hours = (name: string, fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .refine((s) => /^\d{1,4}(\.\d{1,3})?$/.test(s.trim()) && Number(s) > 0 && Number(s) <= 8760, {
      error: `${name} must be a number of hours above 0 and at most 8760 (e.g. ${fallback} or 0.5)`,
    })
    .transform(Number);

const ZEnv = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is required (postgresql://user:password@host:5432/db)" })
    .regex(/^postgres(ql)?:\/\//, { error: "DATABASE_URL must be a postgresql:// URL" }),
  REDIS_URL: z
    .string({ error: "REDIS_URL is required (redis://host:6379)" })
    .regex(/^rediss?:\/\//, { error: "REDIS_URL must be a redis:// URL" }),
  /** Host names served besides localhost, 127.0.0.1 and ::1, comma-separated (e.g. `lab.example.org`). */
  SCALELAB_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((s) =>
      s
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.string().regex(/^[a-z0-9.-]{1,253}$|^[0-9a-f:]{2,39}$/, {
          error: "SCALELAB_ALLOWED_HOSTS must be host names or IP addresses, comma-separated (no ports, no schemes)",
        }),
      ),
    ),
  /**
   * The address the web listens on (what its launcher passes to `next start -H`). Off loopback (or
   * unset: `next start` alone listens on every interface) every API call and page needs a token
   * (server/auth; @scalelab/scenarios/contract tokenRequired).
   */
  SCALELAB_LISTEN_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:[\]-]{1,253}$/, { error: "SCALELAB_LISTEN_HOST must be an address or host name (e.g. 127.0.0.1, 0.0.0.0, ::1)" })
    .optional(),
  /** `required`: tokens are needed on loopback too; `auto` (the default): only off loopback. */
  SCALELAB_AUTH: z.enum(["auto", "required"], { error: "SCALELAB_AUTH must be auto or required" }).default("auto"),
  /** The Docker engine the lab builds users' images on and lists them from (the worker's: apps/worker/src/env.ts). */
  SCALELAB_DOCKER_SOCKET: z.string().min(1).default("/var/run/docker.sock"),
  /** The longest an experiment may be estimated to take; longer ones are refused (422). */
  // The defaults are @scalelab/scenarios/experiments QUOTA_DEFAULT_HOURS (env.test.ts checks), written out: next.config.ts reads
  // this file, and Next's config loader does not compile the workspace's TypeScript packages.
  SCALELAB_MAX_EXPERIMENT_HOURS: hours("SCALELAB_MAX_EXPERIMENT_HOURS", 6),
  /** The most work the queue may hold (queued and running runs' remaining seconds); more is refused (429) until it drains. */
  SCALELAB_MAX_QUEUE_HOURS: hours("SCALELAB_MAX_QUEUE_HOURS", 24),
});
export type Env = z.infer<typeof ZEnv>;

let parsed: Env | undefined;

/**
 * The only reader of process.env. Parsed on first use rather than on import so that
 * `next build` does not need a database; src/instrumentation.ts calls it at server start.
 */
export function getEnv(): Env {
  parsed ??= parseEnv(process.env);
  return parsed;
}

/** The environment's values for the web, or an error naming every bad one. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const r = ZEnv.safeParse({
    DATABASE_URL: source.DATABASE_URL,
    REDIS_URL: source.REDIS_URL,
    SCALELAB_ALLOWED_HOSTS: source.SCALELAB_ALLOWED_HOSTS,
    SCALELAB_LISTEN_HOST: source.SCALELAB_LISTEN_HOST || undefined,
    SCALELAB_AUTH: source.SCALELAB_AUTH || undefined,
    SCALELAB_DOCKER_SOCKET: source.SCALELAB_DOCKER_SOCKET || undefined,
    SCALELAB_MAX_EXPERIMENT_HOURS: source.SCALELAB_MAX_EXPERIMENT_HOURS || undefined,
    SCALELAB_MAX_QUEUE_HOURS: source.SCALELAB_MAX_QUEUE_HOURS || undefined,
  });
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  - ${i.message}`).join("\n");
    throw new Error(`scalelab web: invalid environment\n${lines}`);
  }
  return r.data;
}

/**
 * Where `next build` writes the build and `next start` reads it: `.next` unless
 * SCALELAB_WEB_DIST_DIR says `.next-e2e`, the test suite's own build (scripts/test.sh), so that
 * building it never replaces the chunks of a dashboard started from the same checkout. Only
 * these two names: git, eslint, prettier and turbo ignore both, and tsconfig.json lists the
 * types Next.js generates in each (else `next build` would rewrite tsconfig.json).
 * Read by next.config.ts.
 */
export const NEXT_DIST_DIRS = [".next", ".next-e2e"] as const;

export function nextDistDir(): (typeof NEXT_DIST_DIRS)[number] {
  const r = z
    .enum(NEXT_DIST_DIRS, { error: `SCALELAB_WEB_DIST_DIR must be one of: ${NEXT_DIST_DIRS.join(", ")}` })
    .default(".next")
    .safeParse(process.env.SCALELAB_WEB_DIST_DIR || undefined);
  if (!r.success) throw new Error(`scalelab web: invalid environment\n  - ${r.error.issues[0]!.message}`);
  return r.data;
}

/**
 * Whether `next build` skips its type check: SCALELAB_WEB_BUILD_TYPECHECK=off, which only the app
 * image's build sets (packages/images/app/Dockerfile): there the check would repeat the test
 * command's typecheck, at half a minute of the image's build. Read by next.config.ts.
 */
export function buildSkipsTypecheck(): boolean {
  const r = z
    .enum(["on", "off"], { error: "SCALELAB_WEB_BUILD_TYPECHECK must be on or off" })
    .default("on")
    .safeParse(process.env.SCALELAB_WEB_BUILD_TYPECHECK || undefined);
  if (!r.success) throw new Error(`scalelab web: invalid environment\n  - ${r.error.issues[0]!.message}`);
  return r.data === "off";
}

/** The runtime Next.js runs this code in: "nodejs" or "edge" (set by Next.js). */
export function nextRuntime(): string | undefined {
  return process.env.NEXT_RUNTIME;
}
