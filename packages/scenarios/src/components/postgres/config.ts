/** Postgres as a store kind: one server. */
export const POSTGRES_STORE = { kind: "postgres", label: "Postgres" } as const;
