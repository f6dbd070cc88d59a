import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { STORE_HOST, STORE_ROLE } from "../../names";
import { ComponentModule } from "../types";
import { POSTGRES_CONNECTIONS, POSTGRES_STORE } from "./config";
import { storeKindForm } from "../storage";
import { initStatements, INIT_PATH, renderSetup, SCHEMA_PATH, STORE_DB, STORE_PASSWORD, STORE_USER, storeRoles } from "../storage";

export const POSTGRES_PORT = 5432;

/** What a user's service gets to reach the Postgres store: a connection URL and libpq's own variables. */
export function postgresServiceEnv({ topology: t }: Pick<TRunCreate, "topology">): Record<string, string> {
  if (t.storage.kind !== "postgres") return {};
  return {
    DATABASE_URL: `postgres://${STORE_USER}:${STORE_PASSWORD}@${STORE_HOST}:${POSTGRES_PORT}/${STORE_DB}`,
    PGHOST: STORE_HOST,
    PGPORT: String(POSTGRES_PORT),
    PGUSER: STORE_USER,
    PGPASSWORD: STORE_PASSWORD,
    PGDATABASE: STORE_DB,
  };
}

/** Tables and seed as SQL; the products come from generate_series in one statement. */
export function postgresSetup(products: number): string[] {
  if (!Number.isInteger(products) || products < 1) throw new Error("products must be a positive whole number");
  return [
    "CREATE TABLE IF NOT EXISTS products (\n  id integer PRIMARY KEY,\n  name text NOT NULL,\n  price numeric(10, 2) NOT NULL\n)",
    "CREATE TABLE IF NOT EXISTS activities (\n  id uuid PRIMARY KEY,\n  user_id uuid NOT NULL,\n  created_at timestamptz NOT NULL,\n  data jsonb NOT NULL\n)",
    `INSERT INTO products (id, name, price)\n  SELECT i, 'product-' || i, ((i * 7919) % 100000) / 100.0\n  FROM generate_series(1, ${products}) AS i\n  ON CONFLICT (id) DO NOTHING`,
  ];
}

export const postgres: ComponentModule = {
  kind: "postgres",
  slot: "storage",
  form: storeKindForm(POSTGRES_STORE.kind, POSTGRES_STORE.label),
  roles: (run) => storeRoles(run.topology.storage, "postgres"),
  serviceEnv: postgresServiceEnv,
  rules: ({ topology: t }) => {
    if (t.storage.kind !== "postgres" || t.storage.poolSize * t.service.replicas <= POSTGRES_CONNECTIONS.max) return [];
    const most = Math.floor(POSTGRES_CONNECTIONS.max / t.service.replicas);
    return [
      {
        path: ["topology", "storage", "poolSize"],
        message: `storage.poolSize must be between 1 and ${most} with ${t.service.replicas} replica(s): Postgres takes at most ${POSTGRES_CONNECTIONS.max} connections from the replicas' pools together`,
      },
    ];
  },
  images: (run) => (run.topology.storage.kind === "postgres" ? ["postgres"] : []),
  plan: ({ run, container }) => {
    const s = run.topology.storage;
    if (s.kind !== "postgres") return [];
    // The testbed's products and activities; a user's image brings its own schema (storage.init).
    const testbed = run.topology.service.kind !== "image";
    const setup = testbed ? postgresSetup(s.products) : [];
    const init = initStatements(s, "sql");
    // Every replica's pool plus room for the lab's own session; a user's image sizes its own pools: at least Postgres's default.
    const pools = s.poolSize * run.topology.service.replicas + 10;
    const maxConnections = testbed ? pools : Math.max(100, pools);
    return [
      container({
        index: 0,
        role: STORE_ROLE,
        component: "postgres",
        title: "the Postgres store",
        image: "postgres",
        hostname: STORE_HOST,
        env: { POSTGRES_USER: STORE_USER, POSTGRES_PASSWORD: STORE_PASSWORD, POSTGRES_DB: STORE_DB },
        cmd: ["postgres", "-c", `max_connections=${maxConnections}`],
        cpus: s.cpus,
        memoryMb: s.memoryMb,
        files: [
          ...(testbed ? [{ path: `${SCHEMA_PATH}.sql`, title: "schema", content: renderSetup(setup, undefined, "--") }] : []),
          ...(s.init === undefined ? [] : [{ path: `${INIT_PATH}.sql`, title: "storage.init", content: s.init }]),
        ],
        ports: [POSTGRES_PORT],
        tier: 0,
        ready: [
          {
            kind: "query",
            engine: "postgres",
            port: POSTGRES_PORT,
            user: STORE_USER,
            password: STORE_PASSWORD,
            database: STORE_DB,
            setup,
            check: testbed ? "SELECT count(*) AS n FROM products" : "SELECT 1 AS ready",
            ...(init && { init }),
          },
        ],
      }),
    ];
  },
};
