/** Cassandra as a store kind: one node. */
export const CASSANDRA_STORE = { kind: "cassandra", label: "Cassandra (one node)" } as const;

/** Below 1 GB (a 512 MB heap) one Cassandra node stalls under a light read load. */
export const CASSANDRA_MEMORY_MB = { min: 1024, max: 65536 } as const;
