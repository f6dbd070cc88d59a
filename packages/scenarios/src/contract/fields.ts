import { z } from "zod";

/**
 * Field builders shared by every component schema. Every object is strict (an unknown field is an
 * error naming it, never dropped), numbers are JSON numbers (no coercion) and every message names
 * the field and its allowed range, so the form, tRPC and REST all say the same thing.
 */

export type Range = { min: number; max: number };

export const LIMITS = {
  replicas: { min: 1, max: 16 },
  cpus: { min: 0.05, max: 64 },
  memoryMb: { min: 32, max: 65536 },
  threads: { min: 1, max: 64 },
  cpuIterations: { min: 1, max: 100_000 },
  workerPool: { min: 0, max: 10_000 },
  queueLimit: { min: 0, max: 100_000 },
  logFlushMs: { min: 0, max: 10_000 },
  brokerMemoryMb: { min: 384, max: 65536 },
  storeMemoryMb: { min: 128, max: 65536 },
  poolSize: { min: 1, max: 1000 },
  products: { min: 1, max: 10_000 },
  vus: { min: 1, max: 1000 },
  arrivalRate: { min: 1, max: 100_000 },
  maxVus: { min: 1, max: 5000 },
  durationSeconds: { min: 5, max: 3600 },
  requestTimeoutMs: { min: 100, max: 60_000 },
  loadgenCpus: { min: 0.1, max: 64 },
  /** wrk's open connections (all instances together). */
  connections: { min: 1, max: 20_000 },
  /** wrk's threads per instance. */
  loadgenThreads: { min: 1, max: 64 },
  /** Load-generator containers sharing the load. */
  loadgenInstances: { min: 1, max: 8 },
  name: { max: 200 },
  /** A user's service: the port it listens on. */
  port: { min: 1, max: 65535 },
  /** A user's service: environment variables and their values (bytes). */
  envVars: { max: 64 },
  envValueBytes: { max: 4096 },
  /** A user's service: its command (argv) items and the bytes of each. */
  commandArgs: { max: 64 },
  commandArgBytes: { max: 4096 },
  /** A URL path with its query string. */
  pathChars: { max: 2048 },
  /** workload.request: headers and the body (bytes). */
  headers: { max: 32 },
  headerValueBytes: { max: 8192 },
  bodyBytes: { max: 65536 },
  /** workload.requests: the mix's entries and each one's weight. */
  requests: { min: 1, max: 20 },
  weight: { min: 1, max: 1000 },
  /** workload.script: a k6 script (bytes). */
  scriptBytes: { max: 256 * 1024 },
  /** storage.init: an SQL or CQL script (bytes). */
  initBytes: { max: 1024 * 1024 },
  /** A Docker image reference. */
  imageRefChars: { max: 255 },
} as const;

export const int = (field: string, r: Range) =>
  z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be a whole number between ${r.min} and ${r.max}` })
    .min(r.min, { error: `${field} must be between ${r.min} and ${r.max}` })
    .max(r.max, { error: `${field} must be between ${r.min} and ${r.max}` });

export const num = (field: string, r: Range) =>
  z
    .number({ error: `${field} must be a number` })
    .min(r.min, { error: `${field} must be between ${r.min} and ${r.max}` })
    .max(r.max, { error: `${field} must be between ${r.min} and ${r.max}` });

export const oneOf = <const T extends readonly [string, ...string[]]>(field: string, values: T) =>
  z.enum(values, { error: `${field} must be one of: ${values.join(", ")}` });

/** A strict object whose unknown keys are reported as `<prefix>.<key> is not a known field`. */
export function strict<S extends z.ZodRawShape>(prefix: string, shape: S) {
  return z.strictObject(shape, {
    error: (iss) => {
      if (iss.code === "unrecognized_keys") {
        const names = iss.keys.map((k) => (prefix ? `${prefix}.${k}` : k));
        return `unknown field${names.length > 1 ? "s" : ""} ${names.join(", ")}: check the spelling (fields: ${Object.keys(shape).join(", ")})`;
      }
      if (iss.code === "invalid_type") return `${prefix || "the body"} must be an object`;
      return undefined;
    },
  });
}

/** Free text without NUL bytes (Postgres refuses them in text columns). */
export const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .max(max, { error: `${field} must be at most ${max} characters` })
    .refine((s) => !s.includes("\u0000"), { error: `${field} must not contain NUL bytes` });

const bytes = (s: string) => new TextEncoder().encode(s).length;

/** A string of at most `max` UTF-8 bytes without NUL bytes (not trimmed: a script's or a value's spaces are its own). */
export const sized = (field: string, max: number, what = "bytes") =>
  z
    .string({ error: `${field} must be a string` })
    .refine((s) => bytes(s) <= max, { error: `${field} must be at most ${max.toLocaleString("en-US")} ${what}` })
    .refine((s) => !s.includes("\u0000"), { error: `${field} must not contain NUL bytes` });

/**
 * A Docker image reference on the lab's engine: `name[:tag]` (lowercase path components, as
 * `docker build -t` takes them, an optional registry host with a port) or `name@sha256:<digest>`,
 * or an image id (`sha256:<64 hex>`).
 */
export const IMAGE_REF_PATTERN =
  /^(?:sha256:[a-f0-9]{64}|(?:[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]{1,5})?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?)$/;

export const imageRef = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, { error: `${field} must name an image (e.g. myapp:1.2)` })
    .max(LIMITS.imageRefChars.max, { error: `${field} must be at most ${LIMITS.imageRefChars.max} characters` })
    .regex(IMAGE_REF_PATTERN, {
      error: `${field} must be a Docker image reference: name[:tag] in lowercase (e.g. myapp:1.2), name@sha256:<digest> or an image id sha256:<64 hex digits>`,
    });

/**
 * A URL path with an optional query string: starts with "/", then only the characters RFC 3986
 * allows unescaped in a path and a query (percent-escapes for the rest), so it is safe in a
 * request line and as a JSON string in a script.
 */
export const URL_PATH_PATTERN = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/;
export const urlPath = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .max(LIMITS.pathChars.max, { error: `${field} must be at most ${LIMITS.pathChars.max} characters` })
    .regex(URL_PATH_PATTERN, {
      error: `${field} must be a path starting with / (and an optional ?query), with characters a URL allows unescaped (percent-escape the others, e.g. %20 for a space)`,
    });

/** An environment variable's name: what POSIX shells accept, upper case. */
export const ENV_NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;
