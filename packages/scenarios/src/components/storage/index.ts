import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";
import type { TRunCreate } from "../../contract/run";

export const STORAGE_KINDS = ["none", "postgres", "cassandra"] as const;

/** The store behind the service: none, Postgres or Cassandra, one node. */
export const ZStorage = strict("storage", {
  kind: oneOf("storage.kind", STORAGE_KINDS).default("none"),
  cpus: num("storage.cpus", LIMITS.cpus).optional(),
  memoryMb: int("storage.memoryMb", LIMITS.storeMemoryMb).default(1024),
  /** Connections each service replica keeps to the store. */
  poolSize: int("storage.poolSize", LIMITS.poolSize).default(10),
  /** Rows seeded into `products` before the load. */
  products: int("storage.products", LIMITS.products).default(100),
});

export const STORE_ROLE = "db";
export const STORE_HOST = "db";
export const STORE_DB = "lab";
export const STORE_USER = "lab";
/** A fixed password: the store is reachable only on the run's own network. */
export const STORE_PASSWORD = "lab";
export const SCHEMA_PATH = "/scalelab/schema";

/** The service's environment for its store. */
export function storageEnv(run: TRunCreate): Record<string, string> {
  const s = run.topology.storage;
  if (s.kind === "none") return { TESTBED_STORAGE: "none" };
  return {
    TESTBED_STORAGE: s.kind,
    TESTBED_DB_HOST: STORE_HOST,
    TESTBED_DB_POOL: String(s.poolSize),
    TESTBED_DB_PASSWORD: STORE_PASSWORD,
  };
}

/** The seeded products: deterministic, so two runs read the same rows. */
export function productRow(i: number): [number, string, string] {
  return [i, `product-${i}`, (((i * 7919) % 100_000) / 100).toFixed(2)];
}

/** A readable rendering of the setup a store gets before the load (for previews). */
export function renderSetup(setup: string[], seed: { statement: string; rows: number } | undefined, comment: string): string {
  const lines = setup.map((s) => `${s};`);
  if (seed) lines.push(`${comment} then ${seed.rows} rows, i = 1..${seed.rows}: ${seed.statement} with (i, 'product-' || i, price)`);
  return `${lines.join("\n\n")}\n`;
}
