import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";

export * from "./generated/client";

/**
 * A Prisma client on the pg driver adapter. The caller owns it and calls `$disconnect()`. Every
 * wait on Postgres has a deadline: connecting, waiting for a pooled connection, and each query.
 */
export function createDb(databaseUrl: string, opts: { max?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: opts.max ?? 5,
    connectionTimeoutMillis: 10_000,
    query_timeout: 30_000,
    statement_timeout: 30_000,
  });
  return new PrismaClient({ adapter });
}

export type Db = PrismaClient;
