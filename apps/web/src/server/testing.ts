import { DEFAULT_QUOTAS } from "@scalelab/scenarios/experiments";
import type { Deps } from "./runtime";

/**
 * Test helpers shared by the handler tests (unit tests use fakeDeps; integration tests build
 * real Deps). Nothing here is used by the app.
 */

export const JSON_TYPE = { "content-type": "application/json" };

/** A run body the shared schema accepts; `replicas` replaced by whatever a test wants to send. */
export function runBody(replicas: unknown = 1, name = "handler test"): Record<string, unknown> {
  return {
    name,
    topology: { service: { replicas, memoryMb: 64 } },
    workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 },
  };
}

export const post = (url: string, body: BodyInit | null, headers: Record<string, string> = JSON_TYPE) =>
  new Request(url, { method: "POST", body, headers, duplex: "half" } as RequestInit);

/** The values a JSON body may send for a number field that are not JSON numbers. */
export const NOT_NUMBERS: [string, unknown][] = [
  ['"3"', "3"],
  ['"5"', "5"],
  ['"0x10"', "0x10"],
  ["true", true],
  ["[1]", [1]],
];

/** `listed`: the rows each list query asked for (a page's size and one more, to know if there is a next page). */
type Calls = { findMany: unknown[]; findUnique: unknown[]; created: Record<string, unknown>[]; queued: unknown[]; listed: unknown[] };

/**
 * Deps whose database and queue are in-memory stand-ins recording their calls: enough for the
 * procedures' happy paths and for a database that fails with `fail` (an error message) on reads.
 */
export function fakeDeps(opts: { fail?: string } = {}): { deps: Deps; calls: Calls } {
  const calls: Calls = { findMany: [], findUnique: [], created: [], queued: [], listed: [] };
  const failing = () => {
    if (opts.fail) throw new Error(opts.fail);
  };
  const db = {
    // The keyset queries of the lists (runs/service.ts listRuns): LIMIT is their last value.
    $queryRaw: async (sql: TemplateStringsArray, ...values: unknown[]) => {
      failing();
      // The queue's work (quotas/service.ts readQueue): an empty queue.
      if (sql.join("?").includes('"settle_seconds"')) return [];
      calls.listed.push({ rows: values.at(-1) });
      return [];
    },
    // The queue's lock (quotas/service.ts admitToQueue), and a transaction that is the database itself.
    $executeRaw: async () => 0,
    $transaction: async (fn: (tx: unknown) => Promise<unknown>) => fn(db),
    run: {
      findMany: async (args: unknown) => (failing(), calls.findMany.push(args), []),
      findUnique: async (args: unknown) => (failing(), calls.findUnique.push(args), null),
      count: async () => (failing(), 0),
      create: async (args: { data: Record<string, unknown> }) => (calls.created.push(args.data), args.data),
      deleteMany: async () => ({ count: 0 }),
      updateMany: async () => (failing(), { count: 0 }),
    },
    experiment: { findUnique: async () => (failing(), null), findMany: async () => (failing(), []) },
    // No baselines: a run records none, and none is marked.
    baseline: { findUnique: async () => (failing(), null), findMany: async () => (failing(), []), count: async () => (failing(), 0) },
    runSample: { findMany: async () => (failing(), []) },
  };
  const deps = {
    db,
    redis: { get: async () => null, publish: async () => 0 },
    queue: { add: async (...args: unknown[]) => (calls.queued.push(args), {}), remove: async () => 0, getJob: async () => undefined },
    channels: {},
    quotas: DEFAULT_QUOTAS,
  } as unknown as Deps;
  return { deps, calls };
}

/** Whether any schema reachable from `schema` has `coerce` set in its definition. */
export function coercedSchemas(schema: unknown): string[] {
  const found: string[] = [];
  const seen = new Set<unknown>();
  const visit = (s: unknown, path: string) => {
    if (typeof s !== "object" || s === null || seen.has(s)) return;
    seen.add(s);
    const def = (s as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return;
    if (def.coerce === true) found.push(path || "(root)");
    for (const [k, v] of Object.entries(def)) {
      if (k === "shape" && typeof v === "object" && v !== null) {
        for (const [field, child] of Object.entries(v)) visit(child, path ? `${path}.${field}` : field);
      } else if (Array.isArray(v)) {
        v.forEach((child, i) => visit(child, `${path}[${k}${i}]`));
      } else if (typeof v === "object" && v !== null && "_zod" in v) {
        visit(v, path);
      }
    }
  };
  visit(schema, "");
  return found;
}
