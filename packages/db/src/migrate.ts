import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");
const LOCK_KEY = 4_242_001;

export type MigrateResult = { applied: string[]; alreadyApplied: string[] };

/**
 * Applies prisma/migrations/<name>/migration.sql in name order, each in its own transaction,
 * recording them in `_scalelab_migrations`. An advisory lock makes concurrent callers safe.
 */
export async function migrate(databaseUrl: string): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS "_scalelab_migrations" ("name" TEXT PRIMARY KEY, "applied_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP)`,
    );
    const done = new Set((await client.query<{ name: string }>(`SELECT name FROM "_scalelab_migrations"`)).rows.map((r) => r.name));
    const names = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const name of names) {
      if (done.has(name)) {
        result.alreadyApplied.push(name);
        continue;
      }
      const sql = readFileSync(join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
      await client.query("BEGIN");
      try {
        await client.query(sql);
        await client.query(`INSERT INTO "_scalelab_migrations" (name) VALUES ($1)`, [name]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${name} failed: ${(err as Error).message}`);
      }
      result.applied.push(name);
    }
    return result;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
