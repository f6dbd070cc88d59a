import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";

export * from "./generated/client";

/** A Prisma client on the pg driver adapter. The caller owns it and calls `$disconnect()`. */
export function createDb(databaseUrl: string, opts: { max?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: opts.max ?? 5 });
  return new PrismaClient({ adapter });
}

export type Db = PrismaClient;
