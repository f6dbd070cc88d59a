import { z } from "zod";
import { APP_PORT, HEALTH_PATH } from "../../names";
import { ENV_NAME_PATTERN, imageRef, int, LIMITS, num, oneOf, sized, strict, urlPath } from "../../contract/fields";

export const LOGGING_MODES = ["none", "async", "blocking"] as const;

/** Experiment 7's servers (./hotkey.ts): each answers `GET /key` with the hot key from its store. */
export const HOT_KEY_KINDS = ["nginx_static", "nginx_lua", "rack", "rack_trivial", "rails", "memcached"] as const;
export type HotKeyKind = (typeof HOT_KEY_KINDS)[number];

/**
 * What serves the requests (`kind`): the testbed (every endpoint and runtime knob), one of
 * experiment 7's servers, each answering `GET /key` with the hot key from a Redis container
 * (memcached: from a memcached container through nginx's memcached_pass; see ./hotkey.ts), or
 * the user's own image (`image`, with its contract: port, health path, env, command).
 */
export const SERVICE_KINDS = ["testbed", ...HOT_KEY_KINDS, "image"] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

/** The knobs of the testbed's runtime model, with their defaults: the other kinds refuse a value that differs. */
export const TESTBED_KNOBS = { cpuIterations: 1000, workerPool: 0, queueLimit: 0, logging: "none", logFlushMs: 0 } as const;

/** A user's image: what the lab assumes when the run does not say. */
export const IMAGE_DEFAULTS = { port: 8080, healthPath: "/" } as const;
/** The fields only a user's image has: the other kinds refuse them. */
export const IMAGE_FIELDS = ["image", "port", "healthPath", "env", "command"] as const;

const envMap = z
  .record(
    z.string().regex(ENV_NAME_PATTERN, {
      error: "service.env names must match [A-Z_][A-Z0-9_]* (upper-case letters, digits and _, not starting with a digit)",
    }),
    sized("service.env values", LIMITS.envValueBytes.max),
    {
      error: (iss) =>
        iss.code === "invalid_type"
          ? "service.env must be an object of NAME: value strings"
          : iss.code === "invalid_key"
            ? "service.env names must match [A-Z_][A-Z0-9_]* (upper-case letters, digits and _, not starting with a digit)"
            : undefined,
    },
  )
  .refine((e) => Object.keys(e).length <= LIMITS.envVars.max, {
    error: `service.env must have at most ${LIMITS.envVars.max} variables`,
  });

const argv = z
  .array(sized("service.command items", LIMITS.commandArgBytes.max), {
    error: "service.command must be a list of strings (argv, no shell)",
  })
  .min(1, { error: "service.command must have at least 1 item (the program), or be left out to run the image's own command" })
  .max(LIMITS.commandArgs.max, { error: `service.command must have at most ${LIMITS.commandArgs.max} items` });

/** The service under test, its replicas and (for the testbed) its runtime model. */
export const ZService = strict("service", {
  kind: oneOf("service.kind", SERVICE_KINDS).default("testbed"),
  /** kind image: the image on the lab's engine (`docker build -t myapp:1.2`, or uploaded through POST /api/v1/images). */
  image: imageRef("service.image").optional(),
  /** kind image: the port it serves HTTP on (1–65535); omitted = 8080. */
  port: int("service.port", LIMITS.port).optional(),
  /** kind image: a 2xx answer to GET on this path means a replica is ready; omitted = "/". */
  healthPath: urlPath("service.healthPath").optional(),
  /** kind image: environment variables (at most 64), beside those the lab sets for the run's dependencies. */
  env: envMap.optional(),
  /** kind image: the command (argv, no shell), replacing the image's CMD; omitted = the image's own. */
  command: argv.optional(),
  replicas: int("service.replicas", LIMITS.replicas).default(1),
  /** CPU limit per replica (fractional, e.g. 0.2); omitted = no CPU limit. */
  cpus: num("service.cpus", LIMITS.cpus).optional(),
  memoryMb: int("service.memoryMb", LIMITS.memoryMb).default(256),
  /**
   * OS threads of the runtime (GOMAXPROCS; for the hot-key servers nginx's worker processes or
   * Puma's processes); 1 behaves like a single-threaded runtime. Omitted = as a container-aware
   * runtime chooses: one per CPU of the limit, rounded up (one per host CPU without a limit).
   */
  threads: int("service.threads", LIMITS.threads).optional(),
  /** Work per request of the `cpu` endpoint: N × JSON-encode a random 10-character string. */
  cpuIterations: int("service.cpuIterations", LIMITS.cpuIterations).default(TESTBED_KNOBS.cpuIterations),
  /** At most this many requests are worked on at once per replica; 0 = unbounded. */
  workerPool: int("service.workerPool", LIMITS.workerPool).default(TESTBED_KNOBS.workerPool),
  /** Requests that may wait for a worker; beyond it the replica answers 503. 0 = unbounded. */
  queueLimit: int("service.queueLimit", LIMITS.queueLimit).default(TESTBED_KNOBS.queueLimit),
  /** One log line per request: not written, buffered and flushed in the background, or written and flushed by the request. */
  logging: oneOf("service.logging", LOGGING_MODES).default(TESTBED_KNOBS.logging),
  /** What one flush costs on top of the real disk (a slow disk or a remote sink), in ms. */
  logFlushMs: int("service.logFlushMs", LIMITS.logFlushMs).default(TESTBED_KNOBS.logFlushMs),
}).superRefine((s, ctx) => {
  if (s.kind === "image") {
    if (s.image === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["image"],
        message: "service.image is required with kind image: an image on the lab's engine, e.g. myapp:1.2",
      });
    }
    if (s.threads !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["threads"],
        message: "service.threads applies only to the lab's own servers (the image chooses its own threads; set them through service.env)",
      });
    }
  } else {
    for (const key of IMAGE_FIELDS) {
      if (s[key] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `service.${key} applies only to kind image (the ${s.kind} server is the lab's own)`,
        });
      }
    }
  }
  if (s.kind === "testbed") return;
  for (const [key, standard] of Object.entries(TESTBED_KNOBS)) {
    if (s[key as keyof typeof TESTBED_KNOBS] !== standard) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `service.${key} applies only to kind testbed (the ${s.kind === "image" ? "image" : `${s.kind} server`} has no such knob)`,
      });
    }
  }
});

export type TService = z.infer<typeof ZService>;

/** A user's image's contract with the lab, its defaults filled in (undefined for the lab's own kinds). */
export function imageService(
  s: TService,
): { image: string; port: number; healthPath: string; env: Record<string, string>; command?: string[] } | undefined {
  if (s.kind !== "image" || s.image === undefined) return undefined;
  return {
    image: s.image,
    port: s.port ?? IMAGE_DEFAULTS.port,
    healthPath: s.healthPath ?? IMAGE_DEFAULTS.healthPath,
    env: s.env ?? {},
    ...(s.command && { command: s.command }),
  };
}

/** The port the service's replicas serve HTTP on: a user's image's own, else the lab's. */
export const servicePort = (s: TService): number => imageService(s)?.port ?? APP_PORT;
/** The path whose 2xx answer means a replica is ready. */
export const serviceHealthPath = (s: TService): string => imageService(s)?.healthPath ?? HEALTH_PATH;
