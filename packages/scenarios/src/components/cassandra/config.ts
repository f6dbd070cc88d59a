/** Cassandra as a store kind: one node. */
export const CASSANDRA_STORE = { kind: "cassandra", label: "Cassandra (one node)" } as const;
