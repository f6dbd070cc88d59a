import { hostname } from "node:os";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "./env";
import { createLogger } from "./log";
import { acquireWorkerLock, stopWhenLost, WORKER_LOCK_KEY, WorkerAlreadyRunning, InstanceLock } from "./single-instance";

/*
 * Against the real Postgres of DATABASE_URL. A missing Postgres fails the suite in beforeAll with
 * the reason; nothing is skipped. The independence case takes the lock on the server's `postgres`
 * database as well: the app role may not create databases (it is no superuser and has no CREATEDB),
 * and every Postgres has that one, which no worker uses.
 */
const env = parseEnv();
const otherName = "postgres";
const otherUrl = (() => {
  const u = new URL(env.DATABASE_URL);
  u.pathname = `/${otherName}`;
  return u.toString();
})();
let admin: pg.Client;
const held: InstanceLock[] = [];

async function acquire(url = env.DATABASE_URL, opts?: { heartbeatMs?: number }): Promise<InstanceLock> {
  const lock = await acquireWorkerLock(url, opts);
  held.push(lock);
  return lock;
}

/** The Postgres backend holding the worker lock on the admin connection's database. */
async function holderBackend(): Promise<number | undefined> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $1::bigint::oid
        AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [WORKER_LOCK_KEY],
  );
  return rows[0]?.pid;
}

beforeAll(async () => {
  admin = new pg.Client({ connectionString: env.DATABASE_URL, connectionTimeoutMillis: 10_000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`integration tests need Postgres at DATABASE_URL: ${(err as Error).message}`);
  }
  // Nothing else may hold the lock here (a worker left running on the test database would).
  const pid = await holderBackend();
  if (pid !== undefined) throw new Error(`the worker lock of the test database is held by backend ${pid}; stop that worker first`);
});

afterEach(async () => {
  await Promise.all(held.splice(0).map((l) => l.release()));
});

afterAll(async () => {
  await admin?.end();
});

describe("one worker per database", () => {
  it("refuses a second holder on the same database, naming the database and the holder", async () => {
    const first = await acquire();
    expect(first.holder).toBe(`scalelab-worker pid=${process.pid} host=${hostname()}`.slice(0, 63));
    const dbName = new URL(env.DATABASE_URL).pathname.slice(1);

    const second = acquire().then(
      () => undefined,
      (err: unknown) => err,
    );
    const err = await second;
    expect(err).toBeInstanceOf(WorkerAlreadyRunning);
    const message = (err as Error).message;
    expect(message).toContain(`another Scalelab worker already runs for database "${dbName}"`);
    expect(message).toContain(`pid=${process.pid}`);
    expect(message).toContain(`host=${hostname()}`);
    expect(message).toMatch(/postgres backend \d+/);
    // The refused attempt leaves no session behind.
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
      [first.holder],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("can be taken again once released", async () => {
    const first = await acquire();
    await first.release();
    await first.release(); // idempotent
    expect(await holderBackend()).toBeUndefined();
    const again = await acquire();
    expect(await holderBackend()).toBeDefined();
    await again.release();
    expect(await holderBackend()).toBeUndefined();
  });

  it("is independent between databases", async () => {
    await acquire();
    const other = await acquire(otherUrl);
    expect(other.database).toBe(
      `database "${otherName}" on ${new URL(env.DATABASE_URL).hostname}:${new URL(env.DATABASE_URL).port || "5432"}`,
    );
    await expect(acquire(otherUrl)).rejects.toThrow(`another Scalelab worker already runs for database "${otherName}"`);
    await expect(acquire()).rejects.toThrow(WorkerAlreadyRunning);
  });

  it("reports a lost connection, and the worker then closes and exits non-zero", async () => {
    const lock = await acquire(env.DATABASE_URL, { heartbeatMs: 500 });
    const events: string[] = [];
    const exited = new Promise<number>((resolve) =>
      stopWhenLost(
        lock,
        createLogger("worker:test"),
        async () => void events.push("close"),
        (code) => resolve(code),
      ),
    );
    const backend = await holderBackend();
    expect(backend).toBeDefined();
    await admin.query("SELECT pg_terminate_backend($1)", [backend]);
    expect(await exited).toBe(1);
    expect(events).toEqual(["close"]);
    // The lock went with the session: a new worker may start.
    await acquire();
  });

  it("fails with a readable error when Postgres does not answer", async () => {
    const u = new URL(env.DATABASE_URL);
    u.port = "1"; // nothing listens there
    await expect(acquireWorkerLock(u.toString())).rejects.toThrow(/cannot reach Postgres \(database ".*" on .*:1\) for the worker lock/);
  });
});
