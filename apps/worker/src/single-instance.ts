import { hostname } from "node:os";
import pg from "pg";
import { errorMessage, Logger } from "./log";

/*
 * One worker per database. Two workers on one control plane would take runs side by side (and
 * the second one's start-up would mark the first one's run `interrupted` and sweep its
 * containers), so a worker holds a Postgres session-level advisory lock for its whole life, on a
 * connection of its own, and a second worker on the same database refuses to start, naming the
 * holder. Advisory locks are per database: a worker on another database is independent.
 *
 * The lock lives as long as that one session, so it needs a direct connection to Postgres (or a
 * session-mode pooler), never a transaction-mode pooler.
 */

/** The fixed lock key. In the int4 range, so `pg_locks` shows it as classid 0, objid KEY, objsubid 1. */
export const WORKER_LOCK_KEY = 0x5ca1e1ab;

/** How often the held lock is checked, and how long a check may take before it counts as lost. */
const HEARTBEAT_MS = 10_000;
const QUERY_TIMEOUT_MS = 10_000;
/** After losing the lock, how long the worker may take to stop before it exits anyway. */
const LOST_CLOSE_MS = 30_000;

export type InstanceLock = {
  /** `database "name" on host:port`, for messages (no credentials). */
  readonly database: string;
  /** The holder's name as other sessions see it (pg_stat_activity.application_name). */
  readonly holder: string;
  /**
   * Calls `fn` once when the lock is lost: its connection failed, was closed or terminated, or a
   * check did not answer in time. Called at once if it is lost already; never after `release()`.
   */
  onLost(fn: (err: Error) => void): void;
  /** Unlocks and closes the connection. Idempotent. */
  release(): Promise<void>;
};

/** Thrown by `acquireWorkerLock` while another session holds the lock on that database. */
export class WorkerAlreadyRunning extends Error {
  override name = "WorkerAlreadyRunning";
}

/** `database "scalelab" on 127.0.0.1:55432`: the URL without its credentials. */
export function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, "")) || url.username || "postgres";
  return `database "${name}" on ${url.hostname}:${url.port || "5432"}`;
}

/**
 * Takes the worker lock of `databaseUrl` on a dedicated connection, or throws
 * `WorkerAlreadyRunning` naming the holder (its application_name, e.g.
 * `scalelab-worker pid=123 host=lab1`, and its Postgres backend). Throws a "cannot reach
 * Postgres" error when the database does not answer.
 */
export async function acquireWorkerLock(databaseUrl: string, opts: { name?: string; heartbeatMs?: number } = {}): Promise<InstanceLock> {
  const database = describeDatabase(databaseUrl);
  // application_name is cut at 63 bytes by Postgres; the pid comes first so it survives.
  const holder = `${opts.name ?? "scalelab-worker"} pid=${process.pid} host=${hostname()}`.slice(0, 63);
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: holder,
    connectionTimeoutMillis: QUERY_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // Until the lock is ours, errors reach the caller through connect()/query(); this keeps an
  // 'error' event from crashing the process meanwhile.
  let failure: Error | undefined;
  client.on("error", (err) => (failure ??= err));

  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new Error(`cannot reach Postgres (${database}) for the worker lock: ${errorMessage(err)}`);
  }
  try {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS locked", [WORKER_LOCK_KEY]);
    if (!rows[0]?.locked) {
      const who = await holderOf(client).catch((err) => `an unknown session (${errorMessage(err)})`);
      throw new WorkerAlreadyRunning(
        `another Scalelab worker already runs for ${database}: held by ${who}. ` +
          "Two workers on one database would run overlapping runs, so this one does not start; " +
          "stop the other one first (bash scripts/down.sh stops the one scripts/up.sh started) or use another database.",
      );
    }
  } catch (err) {
    await client.end().catch(() => {});
    if (err instanceof WorkerAlreadyRunning) throw err;
    throw new Error(`cannot take the worker lock on ${database}: ${errorMessage(failure ?? err)}`);
  }

  let released: Promise<void> | undefined;
  let lost: Error | undefined;
  const listeners: ((err: Error) => void)[] = [];
  const lose = (err: Error) => {
    if (released || lost) return;
    lost = err;
    clearInterval(heartbeat);
    // The session may still be open (a check that timed out): closing it gives the lock up for
    // sure, so whoever starts next is not refused by a worker that has stopped.
    client.end().catch(() => {});
    for (const fn of listeners.splice(0)) fn(err);
  };
  client.removeAllListeners("error");
  client.on("error", (err) => lose(new Error(`the lock's connection failed: ${errorMessage(err)}`)));
  client.on("end", () => lose(new Error("the lock's connection was closed")));
  if (failure) lose(new Error(`the lock's connection failed: ${errorMessage(failure)}`));

  let checking = false;
  const heartbeat = setInterval(() => {
    if (checking || lost || released) return;
    checking = true;
    client
      .query<{ held: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory' AND granted
           AND classid = 0 AND objid = $1::bigint::oid AND objsubid = 1) AS held`,
        [WORKER_LOCK_KEY],
      )
      .then(
        ({ rows }) => rows[0]?.held || lose(new Error("the lock is no longer held by this session")),
        (err) => lose(new Error(`the lock's connection does not answer: ${errorMessage(err)}`)),
      )
      .finally(() => (checking = false));
  }, opts.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();

  return {
    database,
    holder,
    onLost(fn) {
      if (released) return;
      if (lost) {
        const err = lost;
        queueMicrotask(() => fn(err));
      } else listeners.push(fn);
    },
    release: () =>
      (released ??= (async () => {
        clearInterval(heartbeat);
        listeners.length = 0;
        if (!lost) await client.query("SELECT pg_advisory_unlock($1::bigint)", [WORKER_LOCK_KEY]).catch(() => {});
        // Ending the session releases the lock anyway.
        await client.end().catch(() => {});
      })()),
  };
}

/** The sessions holding the worker lock on the client's database, as `app (backend N on ADDR since T)`. */
async function holderOf(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ pid: number; app: string; addr: string | null; since: Date | null }>(
    `SELECT a.pid, a.application_name AS app, host(a.client_addr) AS addr, a.backend_start AS since
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1::bigint::oid AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [WORKER_LOCK_KEY],
  );
  if (rows.length === 0) return "a session that has just let it go (try again)";
  return rows
    .map(
      (r) =>
        `${r.app || "a session without application_name"} (postgres backend ${r.pid}` +
        `${r.addr ? ` from ${r.addr}` : ""}${r.since ? `, connected since ${r.since.toISOString()}` : ""})`,
    )
    .join(", ");
}

/**
 * What a worker does when it loses its lock: it may no longer be the only one, so it stops
 * taking jobs (`close`, given at most 30 s to tear the current run down) and exits non-zero.
 */
export function stopWhenLost(
  lock: InstanceLock,
  log: Logger,
  close: () => Promise<void>,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  lock.onLost((err) => {
    log.error(
      `lost the worker lock on ${lock.database}: ${err.message}; stopping and exiting (status 1) so that two workers never overlap`,
    );
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, LOST_CLOSE_MS).unref());
    const closed = close().catch((e) => log.error("shutdown failed", { error: errorMessage(e) }));
    void Promise.race([closed, deadline]).then(() => exit(1));
  });
}
