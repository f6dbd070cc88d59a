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
