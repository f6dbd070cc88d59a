import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { STORAGE_ENDPOINTS } from "../../contract/workload";
import { SERVICE_ROLE, STORE_HOST, STORE_ROLE } from "../../names";
import { ComponentModule, RoleDecl, RunIssue } from "../types";
import { ComponentForm, either, unless, when } from "../form";
import { LIMITS } from "../../contract/fields";

const STORE_ON = unless("topology.storage.kind", "none");
const IMAGE = when("topology.service.kind", "image");
/** The testbed's own use of the store (its pool and its products): not a user's image's. */
const NOT_IMAGE = unless("topology.service.kind", "image");
import { STORES, TStorage } from "./config";
import { ScriptDialect, ScriptStatement, splitStatements } from "./statements";

/** Where a store's container holds the user's storage.init script (for previews; the worker runs it through a session). */
export const INIT_PATH = "/scalelab/init";

/** The statements of storage.init in the store's language, or none. Throws when a string or comment is left open (the contract refuses it first). */
export function initStatements(s: TStorage, dialect: ScriptDialect): ScriptStatement[] | undefined {
  return s.init === undefined ? undefined : splitStatements(s.init, dialect);
}

/** Which language a store kind's storage.init is written in. */
const INIT_DIALECT: Record<string, ScriptDialect> = { postgres: "sql", cassandra: "cql" };

/** storage.init must split into statements of the store's language, and have at least one. */
function initIssues(s: TStorage): RunIssue[] {
  const dialect = INIT_DIALECT[s.kind];
  if (s.init === undefined || !dialect) return [];
  const issue = (message: string): RunIssue[] => [{ path: ["topology", "storage", "init"], message }];
  try {
    if (splitStatements(s.init, dialect).length === 0) {
      return issue(`storage.init has no statement: give ${dialect === "sql" ? "SQL" : "CQL"} statements ended by ;`);
    }
  } catch (err) {
    return issue(`storage.init (${dialect === "sql" ? "SQL" : "CQL"}): ${(err as Error).message}`);
  }
  return [];
}

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

/**
 * The role a store kind plans: one node with the slot's limits; `incoming` when a network-fault
 * proxy can stand in front of it (Cassandra's clients find the node by its own address: no proxy).
 */
export const storeRoles = (s: TStorage, kind: string, incoming = true): RoleDecl[] =>
  s.kind === kind ? [{ role: STORE_ROLE, count: 1, incoming, path: "topology.storage", cpus: s.cpus, memoryMb: s.memoryMb }] : [];

/** The storage slot: the service's environment, the rule of the endpoints that need a store, its setup row; each kind plans its own node. */
export const storage: ComponentModule = {
  kind: "storage",
  slot: "storage",
  images: () => [],
  plan: () => [],
  roles: () => [],
  presentation: {
    [STORE_ROLE]: { one: "store", many: "stores", name: "Store", column: 3, row: 2, color: "#2b8a3e", label: "title" },
  },
  edges: [{ from: SERVICE_ROLE, to: STORE_ROLE, kind: "query" }],
  clientEnv: storageEnv,
  rules: ({ topology: t, workload: w }) => [
    ...(STORAGE_ENDPOINTS.includes(w.endpoint) && t.storage.kind === "none" && t.service.kind !== "image"
      ? [
          {
            path: ["workload", "endpoint"],
            message: `workload.endpoint ${w.endpoint} needs a store: set topology.storage.kind to ${STORES.map((k) => k.kind).join(" or ")}`,
          },
        ]
      : []),
    ...initIssues(t.storage),
  ],
  form: {
    sections: [
      {
        key: "storage",
        order: 50,
        title: "Store",
        hint: "What the testbed's products and activity endpoints read and write, or your service's database.",
        when: either(when("topology.service.kind", "testbed"), IMAGE),
        fields: [
          {
            path: "topology.storage.kind",
            label: "Kind",
            wide: true,
            options: { none: "none" },
            deps: ["workload.endpoint", "topology.storage.memoryMb", "topology.storage.poolSize"],
          },
          { path: "topology.storage.cpus", label: "CPU", placeholder: "unlimited", hint: "Empty = no limit.", when: STORE_ON },
          { path: "topology.storage.memoryMb", label: "Memory (MB)", when: STORE_ON },
          { path: "topology.storage.poolSize", label: "Connections per replica", when: [STORE_ON, NOT_IMAGE] },
          { path: "topology.storage.products", label: "Seeded products", when: [STORE_ON, NOT_IMAGE] },
          {
            path: "topology.storage.init",
            id: "storageInit",
            label: "Schema / seed script (storage.init)",
            wide: true,
            placeholder: "CREATE TABLE orders (id serial PRIMARY KEY, item text NOT NULL);",
            hint: "SQL for Postgres, CQL for Cassandra (at most 1 MB), run once the store is up and before your service starts; its error fails the run.",
            textarea: { rows: 6, code: true, load: { accept: ".sql,.cql,.txt,text/plain", maxBytes: LIMITS.initBytes.max } },
            when: [STORE_ON, IMAGE],
          },
        ],
      },
    ],
  },
  setup: [
    {
      key: "storage",
      label: "Store",
      show: ({ topology: { storage: s } }) =>
        s.kind === "none"
          ? "none"
          : `${s.kind}, ${s.cpus ?? "unlimited"} CPU, ${s.memoryMb} MB, pool ${s.poolSize}${s.init === undefined ? "" : `, storage.init of ${s.init.split("\n").length} line(s)`}`,
    },
  ],
};

/** A store kind in the form: its name in the kind's options. */
export const storeKindForm = (kind: string, label: string): ComponentForm => ({
  options: [{ path: "topology.storage.kind", value: kind, label }],
});
