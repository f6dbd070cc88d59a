import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { STORE_HOST, STORE_ROLE } from "../../names";
import { jvmHeapMb } from "../jvm";
import { ComponentModule } from "../types";
import { CASSANDRA_MEMORY_MB, CASSANDRA_STORE } from "./config";
import { storeKindForm } from "../storage";
import { initStatements, INIT_PATH, renderSetup, SCHEMA_PATH, STORE_DB, storeRoles } from "../storage";

export const CASSANDRA_PORT = 9042;
/** The data centre of a node under SimpleSnitch: what a driver's load-balancing policy must name. */
export const CASSANDRA_LOCAL_DC = "datacenter1";

/** What a user's service gets to reach the Cassandra node: its host, port, the lab's keyspace and the data centre. */
export function cassandraServiceEnv({ topology: t }: Pick<TRunCreate, "topology">): Record<string, string> {
  if (t.storage.kind !== "cassandra") return {};
  return {
    CASSANDRA_CONTACT_POINTS: STORE_HOST,
    CASSANDRA_PORT: String(CASSANDRA_PORT),
    CASSANDRA_KEYSPACE: STORE_DB,
    CASSANDRA_LOCAL_DC,
  };
}
export const CASSANDRA_YAML_PATH = "/opt/cassandra/conf/cassandra.yaml";

const KEYSPACE = `CREATE KEYSPACE IF NOT EXISTS ${STORE_DB} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`;

/** Keyspace (replication factor 1) and tables as CQL; the products are inserted row by row. */
export function cassandraSetup(): string[] {
  return [
    KEYSPACE,
    `CREATE TABLE IF NOT EXISTS ${STORE_DB}.products (\n  id int PRIMARY KEY,\n  name text,\n  price decimal\n)`,
    `CREATE TABLE IF NOT EXISTS ${STORE_DB}.activities (\n  id uuid PRIMARY KEY,\n  user_id uuid,\n  created_at timestamp,\n  data text\n)`,
  ];
}

export const CASSANDRA_SEED = `INSERT INTO ${STORE_DB}.products (id, name, price) VALUES (?, ?, ?)`;

/**
 * cassandra.yaml of a one-node cluster whose seed is its own host name. Commit log synced
 * periodically (Cassandra's default): a write is acknowledged before it reaches the disk.
 */
export function renderCassandraYaml(): string {
  return [
    "cluster_name: scalelab",
    "num_tokens: 16",
    "partitioner: org.apache.cassandra.dht.Murmur3Partitioner",
    "endpoint_snitch: SimpleSnitch",
    "seed_provider:",
    "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
    "    parameters:",
    `      - seeds: "${STORE_HOST}:7000"`,
    "data_file_directories:",
    "  - /var/lib/cassandra/data",
    "commitlog_directory: /var/lib/cassandra/commitlog",
    "saved_caches_directory: /var/lib/cassandra/saved_caches",
    "hints_directory: /var/lib/cassandra/hints",
    "commitlog_sync: periodic",
    "commitlog_sync_period: 10000ms",
    "start_native_transport: true",
    `native_transport_port: ${CASSANDRA_PORT}`,
    // No listen address: it defaults to the address of the host name (the container's IP). Clients
    // are taken on every interface (on a Swarm node the worker comes through the port published on
    // the node, not over the run network) and told the host name's address, as before.
    "rpc_address: 0.0.0.0",
    `broadcast_rpc_address: ${STORE_HOST}`,
    "authenticator: AllowAllAuthenticator",
    "authorizer: AllowAllAuthorizer",
    "",
  ].join("\n");
}

export const cassandra: ComponentModule = {
  kind: "cassandra",
  slot: "storage",
  form: storeKindForm(CASSANDRA_STORE.kind, CASSANDRA_STORE.label),
  roles: (run) => storeRoles(run.topology.storage, "cassandra", false),
  serviceEnv: cassandraServiceEnv,
  rules: ({ topology: t }) =>
    t.storage.kind === "cassandra" && t.storage.memoryMb < CASSANDRA_MEMORY_MB.min
      ? [
          {
            path: ["topology", "storage", "memoryMb"],
            message: `storage.memoryMb must be between ${CASSANDRA_MEMORY_MB.min} and ${CASSANDRA_MEMORY_MB.max} for cassandra`,
          },
        ]
      : [],
  images: (run) => (run.topology.storage.kind === "cassandra" ? ["cassandra"] : []),
  plan: ({ run, container }) => {
    const s = run.topology.storage;
    if (s.kind !== "cassandra") return [];
    // The testbed's products and activities; a user's image gets the keyspace and brings its tables (storage.init).
    const testbed = run.topology.service.kind !== "image";
    const setup = testbed ? cassandraSetup() : [KEYSPACE];
    const seed = testbed ? { statement: CASSANDRA_SEED, rows: s.products } : undefined;
    const init = initStatements(s, "cql");
    return [
      container({
        index: 0,
        role: STORE_ROLE,
        component: "cassandra",
        title: "the Cassandra store",
        image: "cassandra",
        // The node's own name must be its seed's.
        hostname: STORE_HOST,
        env: { CASSANDRA_HEAP_MB: String(jvmHeapMb(s.memoryMb)) },
        cpus: s.cpus,
        memoryMb: s.memoryMb,
        // Its seed is its own host name.
        keepsHostname: true,
        files: [
          { path: CASSANDRA_YAML_PATH, content: renderCassandraYaml() },
          { path: `${SCHEMA_PATH}.cql`, title: "schema", content: renderSetup(setup, seed, "--") },
          ...(s.init === undefined ? [] : [{ path: `${INIT_PATH}.cql`, title: "storage.init", content: s.init }]),
        ],
        // No `ports`: a network-fault proxy cannot stand in front of it (its hostname must be its
        // seed's name, and the driver connects to the node's own address after discovery).
        tier: 0,
        ready: [
          { kind: "log", pattern: "Starting listening for CQL clients" },
          {
            kind: "query",
            engine: "cassandra",
            port: CASSANDRA_PORT,
            // The keyspace storage.init runs in.
            database: STORE_DB,
            setup,
            ...(seed && { seed }),
            check: testbed ? `SELECT id FROM ${STORE_DB}.products LIMIT 1` : "SELECT release_version FROM system.local",
            ...(init && { init }),
          },
        ],
      }),
    ];
  },
};
