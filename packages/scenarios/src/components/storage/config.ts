import { z } from "zod";
import { CASSANDRA_STORE } from "../cassandra/config";
import { POSTGRES_STORE } from "../postgres/config";
import { int, LIMITS, num, oneOf, sized, strict } from "../../contract/fields";

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
  /**
   * An SQL (Postgres) or CQL (Cassandra) script run once the store is up and before the service
   * starts (at most 1 MB): the user's schema and seed data. Its error fails the run and is shown.
   */
  init: sized("storage.init", LIMITS.initBytes.max).optional(),
}).superRefine((s, ctx) => {
  if (s.init !== undefined && s.kind === "none") {
    ctx.addIssue({ code: "custom", path: ["init"], message: "storage.init needs a store: set storage.kind to postgres or cassandra" });
  }
});

export type TStorage = z.infer<typeof ZStorage>;
