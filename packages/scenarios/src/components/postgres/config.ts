/** Postgres as a store kind: one server. */
export const POSTGRES_STORE = { kind: "postgres", label: "Postgres" } as const;

/** Postgres connections of all replicas' pools together (its max_connections). */
export const POSTGRES_CONNECTIONS = { max: 1000 } as const;
