import { connect } from "node:net";
import { describeStatement, productRow, ScriptStatement } from "@scalelab/scenarios/components";
import { PlannedContainer, Probe } from "@scalelab/scenarios/plan";
import cassandra from "cassandra-driver";
import pg from "pg";
import { errorMessage } from "../log";
import { hostPort, HostPort, StartedContainer } from "../provisioner/types";
import { describeExit, sleep, RunContext } from "./context";
import { BackendNamer } from "./backends";

/**
 * Between two attempts of a probe: 25 ms, doubling up to 250 ms. Most containers (the testbed,
 * nginx) pass within the first tens of milliseconds after their start; slow ones (Kafka,
 * Cassandra) are then polled four times a second.
 */
const FIRST_POLL_MS = 25;
const POLL_MS = 250;
export const pollDelay = (attempt: number) => Math.min(POLL_MS, FIRST_POLL_MS * 2 ** Math.max(0, attempt - 1));
/** One attempt of a probe may take this long; the whole wait has the run's readiness deadline. */
const ATTEMPT_MS = 5_000;

/** `dial(port)`: the host:port the worker connects to for the container's port (the provisioner's dialAddress). */
type Target = { spec: PlannedContainer; started: StartedContainer; dial: (port: number) => Promise<HostPort> };

/** The provisioner's dialAddress for one container, asked once per port. */
export function dialer(ctx: RunContext, containerId: string, network: string): (port: number) => Promise<HostPort> {
  const known = new Map<number, Promise<HostPort>>();
  return (port) => {
    let a = known.get(port);
    if (!a) {
      a = ctx.deps.provisioner.dialAddress(containerId, network, port);
      known.set(port, a);
      a.catch(() => known.delete(port));
    }
    return a;
  };
}

/** Thrown by an attempt that can never succeed (bad setup SQL): no point retrying until the deadline. */
class ProbeFailed extends Error {}

/**
 * Waits until every container of a tier passes its probes, in order, polling each until it
 * passes. A container that exits on the way fails the wait at once with its exit code and output.
 */
export async function waitReady(ctx: RunContext, network: string, targets: Target[], namer?: BackendNamer): Promise<void> {
  const { deps, report, signal } = ctx;
  const deadline = Date.now() + deps.timeouts.healthyMs;
  await Promise.all(
    targets.map(async (t) => {
      const started = Date.now();
      for (const probe of t.spec.ready) {
        let last = "";
        let attempts = 0;
        for (;;) {
          signal.throwIfAborted();
          if (attempts++ % 4 === 0) await failIfExited(ctx, network, t);
          let passed = false;
          try {
            const progress = await attempt(ctx, t, probe, namer);
            if (progress === true) passed = true;
            else last = progress;
          } catch (err) {
            signal.throwIfAborted();
            if (err instanceof ProbeFailed) throw new Error(`${t.spec.title} (${t.spec.name}): ${err.message}`);
            last = errorMessage(err);
          }
          if (passed) {
            // Outside the retries: the user's script runs once.
            if (probe.kind === "query" && probe.init) await runInit(ctx, t, probe, probe.init);
            break;
          }
          if (Date.now() > deadline) {
            await failIfExited(ctx, network, t);
            const seconds = Math.round(deps.timeouts.healthyMs / 1000);
            const logs = await deps.provisioner.logs(t.started.id, 15).catch(() => "");
            throw new Error(
              `${t.spec.title} (${t.spec.name}) not ready after ${seconds} s: ${describeProbe(probe)} did not pass${last ? ` (last answer: ${last})` : ""}; ${logs ? `last output:\n${logs}` : "it wrote no output"}`,
            );
          }
          await report.detail(`waiting for ${t.spec.title}: ${describeProbe(probe)}${last ? ` (${last})` : ""}`);
          await sleep(pollDelay(attempts), signal);
        }
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      await report.event("info", `${t.spec.title} ready in ${seconds} s`);
    }),
  );
}

export function describeProbe(p: Probe): string {
  switch (p.kind) {
    case "http":
      return `GET :${p.port}${p.path}`;
    case "backends":
      return `every replica answering GET :${p.port}${p.path} through it`;
    case "log":
      return `output line /${p.pattern}/`;
    case "tcp":
      return `TCP :${p.port}`;
    case "query":
      return `${p.engine} query on :${p.port}`;
  }
}

async function failIfExited(ctx: RunContext, network: string, t: Target): Promise<void> {
  const state = await ctx.deps.provisioner.inspect(t.started.id, network);
  if (!state.running) throw new Error(await describeExit(ctx.deps, t.started.id, `${t.spec.title} (${t.spec.name})`, network));
}

/** One try: true when the probe passed, otherwise what it saw. */
async function attempt(ctx: RunContext, t: Target, probe: Probe, namer?: BackendNamer): Promise<true | string> {
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(ATTEMPT_MS)]);
  switch (probe.kind) {
    case "http": {
      let res: Response;
      try {
        res = await fetch(`http://${hostPort(await t.dial(probe.port))}${probe.path}`, { signal });
      } catch (err) {
        ctx.signal.throwIfAborted();
        return noAnswer(err);
      }
      const body = await res.text();
      return res.ok ? true : `HTTP ${res.status} ${body.slice(0, 200).trim()}`;
    }
    case "backends":
      return backends(ctx, t, probe, signal, namer);
    case "log": {
      const output = await ctx.deps.provisioner.logs(t.started.id, 100_000);
      return new RegExp(probe.pattern).test(output) ? true : "not yet";
    }
    case "tcp":
      return tcp(await t.dial(probe.port), signal);
    case "query": {
      const at = await t.dial(probe.port);
      return query(probe.engine === "postgres" ? postgresSession(at, probe) : cassandraSession(at, probe), probe);
    }
  }
}

const seenThrough = new WeakMap<Target, Set<string>>();

async function backends(
  ctx: RunContext,
  t: Target,
  probe: Extract<Probe, { kind: "backends" }>,
  signal: AbortSignal,
  namer?: BackendNamer,
): Promise<true | string> {
  if (probe.header && !namer) throw new ProbeFailed(`the probe reads ${probe.header} but has no replica addresses to name it with`);
  let seen = seenThrough.get(t);
  if (!seen) seenThrough.set(t, (seen = new Set()));
  // A few requests per attempt: a round-robin balancer shows each replica within one round.
  for (let i = 0; i < probe.backends.length * 2; i++) {
    const res = await fetch(`http://${hostPort(await t.dial(probe.port))}${probe.path}`, { signal });
    await res.arrayBuffer();
    // The replica's own name, or the balancer's header with its address.
    const raw = res.headers.get(probe.header ?? "x-backend");
    const backend = raw && probe.header && namer ? await namer.one(raw) : raw;
    if (res.ok && backend) seen.add(backend);
    if (probe.backends.every((b) => seen.has(b))) {
      await ctx.report.detail(`all ${probe.backends.length} replica(s) answer through the balancer`);
      return true;
    }
  }
  const missing = probe.backends.filter((b) => !seen.has(b));
  return `${seen.size}/${probe.backends.length} replica(s) answering; not yet seen: ${missing.join(", ")}`;
}

function tcp({ host, port }: HostPort, signal: AbortSignal): Promise<true | string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const done = (v: true | string) => {
      socket.destroy();
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    };
    const onAbort = () => {
      socket.destroy();
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => done(true));
    socket.once("error", (err) => done(errorMessage(err)));
  });
}

type QueryProbe = Extract<Probe, { kind: "query" }>;

/** One database session of a query probe: the same steps whatever the engine. */
type Session = {
  connect(): Promise<void>;
  execute(statement: string): Promise<{ rows: unknown[] }>;
  /** Inserts `rows` product rows with the prepared `statement`. */
  seed(statement: string, rows: number): Promise<unknown>;
  close(): Promise<void>;
};

function postgresSession({ host, port }: HostPort, probe: QueryProbe): Session {
  const client = new pg.Client({
    host,
    port,
    user: probe.user,
    password: probe.password,
    database: probe.database,
    connectionTimeoutMillis: ATTEMPT_MS,
    statement_timeout: 60_000,
    query_timeout: 60_000,
  });
  // An idle error after a failed connect must not crash the worker.
  client.on("error", () => undefined);
  return {
    connect: async () => void (await client.connect()),
    execute: (statement) => client.query(statement),
    seed: () => Promise.reject(new Error("the Postgres setup seeds in SQL")),
    close: () => client.end(),
  };
}

/** Why a request got no answer: fetch's own message ("fetch failed") hides the cause (ECONNREFUSED, a timeout). */
export function noAnswer(err: unknown): string {
  if (err instanceof DOMException && err.name === "TimeoutError") return `no answer within ${ATTEMPT_MS / 1000} s`;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return `no answer: ${cause?.code ?? cause?.message ?? errorMessage(err)}`;
}

/** A session in `keyspace` (storage.init's statements name their tables without it). */
function cassandraSession(at: HostPort, probe: QueryProbe, keyspace?: string): Session {
  const client = new cassandra.Client({
    contactPoints: [hostPort(at)],
    ...(keyspace && { keyspace }),
    localDataCenter: "datacenter1",
    socketOptions: { connectTimeout: ATTEMPT_MS, readTimeout: 30_000 },
    policies: { reconnection: new cassandra.policies.reconnection.ConstantReconnectionPolicy(1_000) },
  });
  return {
    connect: () => client.connect(),
    execute: (statement) => client.execute(statement),
    seed: (statement, rows) => {
      const params = Array.from({ length: rows }, (_, i) => {
        const [id, name, price] = productRow(i + 1);
        return [id, name, cassandra.types.BigDecimal.fromString(price)];
      });
      return cassandra.concurrent.executeConcurrent(client, statement, params, { concurrencyLevel: 32 });
    },
    close: () => client.shutdown(),
  };
}

/** Connects, runs the setup and the seed, then the check; a refused connection is "not yet". */
async function query(session: Session, probe: QueryProbe): Promise<true | string> {
  try {
    await session.connect();
  } catch (err) {
    await session.close().catch(() => undefined);
    return errorMessage(err);
  }
  try {
    for (const statement of probe.setup) await runSetup(() => session.execute(statement), statement);
    const { seed } = probe;
    if (seed) await runSetup(() => session.seed(seed.statement, seed.rows), seed.statement);
    const r = await session.execute(probe.check);
    return r.rows.length > 0 ? true : "the check query returned no row";
  } finally {
    await session.close().catch(() => undefined);
  }
}

/**
 * The user's storage.init, once, statement by statement, in its own session (in the lab's database
 * or keyspace). It need not be idempotent, so nothing is retried: any error fails the run, naming
 * the statement and, for Postgres, the line the server points at.
 */
async function runInit(ctx: RunContext, t: Target, probe: QueryProbe, statements: ScriptStatement[]): Promise<void> {
  const began = Date.now();
  await ctx.report.detail(`running storage.init on ${t.spec.title}: ${statements.length} statement(s)`);
  const at = await t.dial(probe.port);
  const session = probe.engine === "postgres" ? postgresSession(at, probe) : cassandraSession(at, probe, probe.database);
  try {
    try {
      await session.connect();
    } catch (err) {
      throw new Error(`storage.init could not connect to ${t.spec.title} (${t.spec.name}): ${errorMessage(err)}`);
    }
    for (const [i, statement] of statements.entries()) {
      ctx.signal.throwIfAborted();
      try {
        await session.execute(statement.text);
      } catch (err) {
        ctx.signal.throwIfAborted();
        throw new Error(`storage.init failed at ${describeStatement(statement, i)}: ${errorMessage(err)}${errorLine(err, statement)}`);
      }
    }
  } finally {
    await session.close().catch(() => undefined);
  }
  const seconds = ((Date.now() - began) / 1000).toFixed(1);
  await ctx.report.event("info", `storage.init ran ${statements.length} statement(s) on ${t.spec.title} in ${seconds} s`);
}

/** Postgres points at the character of the statement where it failed: the script's line of it. */
export function errorLine(err: unknown, statement: ScriptStatement): string {
  const position = Number((err as { position?: unknown }).position);
  if (!Number.isInteger(position) || position < 1) return "";
  const before = statement.text.slice(0, position - 1);
  return ` (line ${statement.line + (before.match(/\n/g)?.length ?? 0)})`;
}

/** A setup statement that the server refuses (syntax, types) will never pass: fail at once. */
async function runSetup(run: () => Promise<unknown>, statement: string): Promise<void> {
  try {
    await run();
  } catch (err) {
    const e = err as { code?: unknown };
    const refused = typeof e.code === "string" && /^(42|22)/.test(e.code);
    if (refused || e.code === 0x2000 || e.code === 0x2200) {
      throw new ProbeFailed(`setup statement refused: ${errorMessage(err)}\n${statement.split("\n")[0]}`);
    }
    throw err;
  }
}
