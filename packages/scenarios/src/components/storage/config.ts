import { z } from "zod";
import { CASSANDRA_STORE } from "../cassandra/config";
import { POSTGRES_STORE } from "../postgres/config";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";

/** The store kinds, each from its own folder. */
export const STORES = [POSTGRES_STORE, CASSANDRA_STORE] as const;
export type StoreKind = (typeof STORES)[number]["kind"];
export const STORAGE_KINDS = ["none", ...STORES.map((s) => s.kind)] as unknown as readonly ["none", ...StoreKind[]];

/** The store behind the service: none, or one node of a store kind. */
export const ZStorage = strict("storage", {
  kind: oneOf("storage.kind", STORAGE_KINDS).default("none"),
  cpus: num("storage.cpus", LIMITS.cpus).optional(),
  memoryMb: int("storage.memoryMb", LIMITS.storeMemoryMb).default(1024),
  /** Connections each service replica keeps to the store. */
  poolSize: int("storage.poolSize", LIMITS.poolSize).default(10),
  /** Rows seeded into `products` before the load. */
  products: int("storage.products", LIMITS.products).default(100),
});

export type TStorage = z.infer<typeof ZStorage>;
