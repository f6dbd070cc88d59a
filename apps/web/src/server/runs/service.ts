import { randomUUID } from "node:crypto";
import { Prisma, type ContainerSample, type FigureSample, type Run, type RunSample } from "@scalelab/db";
import {
  compareRuns,
  downsampleContainers,
  downsampleFigures,
  downsampleSamples,
  groupRuns,
  groupVerdicts,
  reasonRows,
  repeatExperiment,
  setupRows,
} from "@scalelab/scenarios/analysis";
import { explicitBalancer } from "@scalelab/scenarios/components";
import { validateAgainstHost, validateAgainstNodes } from "@scalelab/scenarios/contract";
import { ZFigureSample, type TContainerSample, type TContainerStat, type TFigureSample } from "@scalelab/scenarios/messages";
import { imbalanceIndex } from "@scalelab/scenarios/analysis";
import { runFindings } from "@scalelab/scenarios/analysis";
import { replicaHost } from "@scalelab/scenarios/components";
import {
  ZHostFacts,
  ZRunCreate,
  ZRunSummary,
  ZSample,
  ZTopology,
  ZWorkload,
  type TRunCreate,
  type TSample,
} from "@scalelab/scenarios/contract";
import { AppError, invalidInput, runNotFound } from "../errors";
import { cancelChannel, encodeCancelMessage, encodeChannelMessage, runChannel, runJob } from "@scalelab/scenarios/messages";
import type { Deps } from "../runtime";
import { runSeconds } from "@scalelab/scenarios/experiments";
import { admitToQueue, quotasOf, TX_OPTIONS } from "../quotas/service";
import { likeContains, likePrefix, pageOf, type TRunListInput } from "./paging";
import { baselineOfName, runRegressions } from "../baselines/service";
import type { TRegression } from "@scalelab/scenarios/analysis";
import { ZRunView, type TContainerSeconds, type TDeleted, type TRunEventView, type TRunPage, type TRunRef, type TRunView } from "./types";

const ENQUEUE_TIMEOUT_MS = 5_000;
const ZBackends = ZSample.shape.backends;
const ZBackendStats = ZSample.shape.backendStats;
const ZErrorKinds = ZSample.shape.errorKinds;

import { readHostBounds } from "../host-bounds";
import { engineNodes } from "../engines/service";

export { readHostBounds, type HostBounds } from "../host-bounds";

/**
 * The run against the engine it names: the lab's own as one host (validateAgainstHost), a Swarm
 * cluster node by node (validateAgainstNodes: placement, then each container on its node). An
 * unknown engine is a 422 naming `engine`, an unreachable one a 503 (engines/service.ts).
 */
export async function validateOnEngine(deps: Pick<Deps, "db" | "redis">, input: TRunCreate) {
  const nodes = await engineNodes(deps, input.engine);
  return nodes ? validateAgainstNodes(input, nodes) : validateAgainstHost(input, await readHostBounds(deps.redis));
}

/** A value as Prisma stores it in a JSON column. */
export const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Validates against the host, inserts the run if the queue has room for it (quotas/service.ts) and
 * enqueues it; on any failure nothing remains.
 */
export async function createRun(deps: Deps, input: TRunCreate): Promise<TRunRef> {
  const issues = await validateOnEngine(deps, input);
  if (issues.length > 0) throw invalidInput(issues);

  const id = randomUUID();
  await deps.db.$transaction(async (tx) => {
    const work = { seconds: runSeconds(input.workload.durationSeconds), what: "this run" };
    await admitToQueue(tx, quotasOf(deps), work);
    await tx.run.create({
      data: {
        id,
        name: input.name ? input.name : null,
        engine: input.engine,
        baselineId: input.name ? await baselineOfName(tx, "run", input.name) : null,
        ...(input.regression && { regression: json(input.regression) }),
        status: "queued",
        step: "queued",
        // Stored with the balancer's defaults written out, so a run's view always names its algorithm.
        topology: json({ ...input.topology, balancer: explicitBalancer(input.topology.balancer) }),
        workload: json(input.workload),
        faults: json(input.faults),
        thresholds: json(input.thresholds),
      },
    });
  }, TX_OPTIONS);
  const job = runJob(id);
  const adding = deps.queue.add(job.name, job.data, job.opts);
  try {
    await withTimeout(adding, ENQUEUE_TIMEOUT_MS, "enqueueing the run");
  } catch (err) {
    // An enqueue that still lands after the timeout would hand the worker a run that no longer exists.
    adding.then(() => deps.queue.remove(id)).catch(() => {});
    await deps.db.run.deleteMany({ where: { id } });
    throw new AppError("unavailable", "the run could not be queued (is Redis up?); nothing was created", [], { cause: err });
  }
  return { id, status: "queued" };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The run as the API shows it; its regression check and whether it is the baseline of its name come from runViews. */
export function toRunView(
  row: Run,
  baseline: { regression: TRegression | null; marked: boolean } = { regression: null, marked: false },
): TRunView {
  const summary = ZRunSummary.safeParse(row.summary);
  const host = ZHostFacts.safeParse(row.host);
  return ZRunView.parse({
    id: row.id,
    name: row.name,
    engine: row.engine,
    status: row.status,
    step: row.step,
    stepDetail: row.stepDetail,
    error: row.error,
    cancelRequested: row.cancelRequested,
    deleteRequested: row.deleteRequested,
    experiment: row.experimentId ? { id: row.experimentId, repetition: row.repetition ?? 0, attempt: row.attempt } : null,
    topology: row.topology,
    workload: row.workload,
    faults: row.faults,
    thresholds: row.thresholds,
    host: host.success ? host.data : null,
    summary: summary.success ? summary.data : null,
    findings: summary.success
      ? runFindings({
          summary: summary.data,
          hostCpus: host.success ? host.data.cpus : null,
          sharedMachine: host.success && host.data.sharedMachine === true,
          openModel: ZWorkload.safeParse(row.workload).data?.arrivalRate !== undefined,
        })
      : [],
    regression: baseline.regression,
    markedBaseline: baseline.marked,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    startedAt: iso(row.startedAt),
    loadStartedAt: iso(row.loadStartedAt),
    finishedAt: iso(row.finishedAt),
  });
}

/**
 * A page of runs, newest first (created_at, then id, both descending) or oldest first (both
 * ascending), after the cursor, with the filters; runs being deleted are left out. The keyset query
 * reads the (created_at, id) index, backwards or forwards.
 */
export async function listRuns(deps: Deps, input: TRunListInput): Promise<TRunPage> {
  const where: Prisma.Sql[] = [Prisma.sql`NOT "delete_requested"`];
  // Constants, never user text: the order is one of ORDERS.
  const [after, dir] = input.order === "oldest" ? [Prisma.raw(">"), Prisma.raw("ASC")] : [Prisma.raw("<"), Prisma.raw("DESC")];
  if (input.cursor) where.push(Prisma.sql`("created_at", "id") ${after} (${input.cursor.createdAt}, ${input.cursor.id})`);
  if (input.status) where.push(Prisma.sql`"status" IN (${Prisma.join(input.status)})`);
  if (input.q) {
    where.push(
      Prisma.sql`("name" ILIKE ${likeContains(input.q)} ESCAPE '\\' OR "id" LIKE ${likePrefix(input.q.toLowerCase())} ESCAPE '\\')`,
    );
  }
  if (input.experiment === "none") where.push(Prisma.sql`"experiment_id" IS NULL`);
  else if (input.experiment) where.push(Prisma.sql`"experiment_id" = ${input.experiment}`);
  if (input.loadgen) where.push(Prisma.sql`COALESCE("workload"->>'loadgen', 'k6') = ${input.loadgen}`);
  if (input.from) where.push(Prisma.sql`"created_at" >= ${input.from}`);
  if (input.to) where.push(Prisma.sql`"created_at" <= ${input.to}`);
  const keys = await deps.db.$queryRaw<{ id: string; created_at: Date }[]>`
    SELECT "id", "created_at" FROM "runs" WHERE ${Prisma.join(where, " AND ")}
    ORDER BY "created_at" ${dir}, "id" ${dir} LIMIT ${input.limit + 1}`;
  const page = pageOf(
    keys.map((k) => ({ id: k.id, createdAt: k.created_at })),
    input.limit,
    input.order,
  );
  const rows = await deps.db.run.findMany({ where: { id: { in: page.rows.map((r) => r.id) } } });
  const views = await runViews(deps, rows);
  // A run deleted between the two reads is left out.
  const items = page.rows.flatMap((k) => views.get(k.id) ?? []);
  return { items, nextCursor: page.nextCursor };
}

export async function getRun(deps: Deps, id: string): Promise<TRunView> {
  const row = await deps.db.run.findUnique({ where: { id } });
  if (!row) throw runNotFound(id);
  return (await runViews(deps, [row])).get(id)!;
}

/** The runs' views with their regression checks and baseline marks, read in two queries. */
async function runViews(deps: Deps, rows: Run[]): Promise<Map<string, TRunView>> {
  const regressions = await runRegressions(deps.db, rows);
  const marks = await deps.db.baseline.findMany({
    where: { kind: "run", targetId: { in: rows.map((r) => r.id) } },
    select: { targetId: true },
  });
  const marked = new Set(marks.map((m) => m.targetId));
  return new Map(rows.map((r) => [r.id, toRunView(r, { regression: regressions.get(r.id) ?? null, marked: marked.has(r.id) })]));
}

export async function assertRunExists(deps: Deps, id: string): Promise<void> {
  const n = await deps.db.run.count({ where: { id } });
  if (n === 0) throw runNotFound(id);
}

/** The run's samples, each second with its imbalance; at most `points` of them (min and max per bucket) when given. */
export async function getSamples(deps: Deps, id: string, points?: number): Promise<TSample[]> {
  const run = await deps.db.run.findUnique({ where: { id }, select: { topology: true } });
  if (!run) throw runNotFound(id);
  const samples = withImbalance(await readSamples(deps, id), run.topology);
  return points === undefined ? samples : downsampleSamples(samples, points);
}

/** Each second's imbalance over the replicas (computed before any downsampling: it needs one second's counts). */
export function withImbalance(samples: TSample[], topology: unknown): TSample[] {
  const replicas = ZTopology.shape.service.safeParse((topology as { service?: unknown } | null)?.service).data?.replicas ?? 1;
  if (replicas < 2) return samples;
  const names = Array.from({ length: replicas }, (_, i) => replicaHost(i));
  return samples.map((s) => {
    const imbalance = imbalanceIndex(s.backends ?? {}, names);
    return imbalance === undefined ? s : { ...s, imbalance };
  });
}

/**
 * A run's seconds, ordered by `t`. Read as one JSON array built by Postgres rather than row by row
 * through Prisma, as readContainerSeconds (docs/BENCHMARKS.md, long runs).
 */
export async function readSamples(deps: Deps, id: string): Promise<TSample[]> {
  const [row] = await deps.db.$queryRaw<{ rows: string }[]>`
    SELECT coalesce(json_agg(json_build_array("t", "requests", "errors", "lat_avg", "lat_p50", "lat_p90", "lat_p95",
      "lat_p99", "lat_max", "backends", "backend_stats", "error_kinds") ORDER BY "t"), '[]')::text AS "rows"
    FROM "run_samples" WHERE "run_id" = ${id}`;
  const rows = JSON.parse(row?.rows ?? "[]") as [number, number, number, ...(number | null)[], unknown, unknown, unknown][];
  return rows.map((r) =>
    toSample({
      runId: id,
      t: r[0],
      requests: r[1],
      errors: r[2],
      latAvg: r[3] as number | null,
      latP50: r[4] as number | null,
      latP90: r[5] as number | null,
      latP95: r[6] as number | null,
      latP99: r[7] as number | null,
      latMax: r[8] as number | null,
      backends: r[9] as RunSample["backends"],
      backendStats: r[10] as RunSample["backendStats"],
      errorKinds: r[11] as RunSample["errorKinds"],
    }),
  );
}

/** The samples of several runs in one query, by run, each ordered by second. */
export async function readSamplesOf(deps: Deps, ids: readonly string[]): Promise<Map<string, TSample[]>> {
  const rows = await deps.db.runSample.findMany({ where: { runId: { in: [...ids] } }, orderBy: [{ runId: "asc" }, { t: "asc" }] });
  const out = new Map<string, TSample[]>();
  for (const row of rows) {
    const list = out.get(row.runId);
    if (list) list.push(toSample(row));
    else out.set(row.runId, [toSample(row)]);
  }
  return out;
}

function toSample(s: RunSample): TSample {
  const backends = ZBackends.safeParse(s.backends);
  // Null in seconds recorded before per-backend truth was: left out.
  const backendStats = ZBackendStats.safeParse(s.backendStats);
  const errorKinds = ZErrorKinds.safeParse(s.errorKinds);
  return {
    t: s.t,
    requests: s.requests,
    errors: s.errors,
    latencyMs:
      s.latAvg === null
        ? null
        : { avg: s.latAvg, p50: s.latP50 ?? 0, p90: s.latP90 ?? 0, p95: s.latP95 ?? 0, p99: s.latP99 ?? 0, max: s.latMax ?? 0 },
    ...(backends.success && backends.data ? { backends: backends.data } : {}),
    ...(backendStats.success && backendStats.data ? { backendStats: backendStats.data } : {}),
    ...(errorKinds.success && errorKinds.data ? { errorKinds: errorKinds.data } : {}),
  };
}

export async function getFigures(deps: Deps, id: string, points?: number): Promise<TFigureSample[]> {
  await assertRunExists(deps, id);
  const figures = await readFigures(deps, id);
  return points === undefined ? figures : downsampleFigures(figures, points);
}

/** The components' per-second figures (pool, broker, downstream), ordered by second. */
export async function readFigures(deps: Deps, id: string): Promise<TFigureSample[]> {
  const rows = await deps.db.figureSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  return rows.map(toFigureSample);
}

const ZFigures = ZFigureSample.shape.figures;

function toFigureSample(row: FigureSample): TFigureSample {
  const figures = ZFigures.safeParse(row.figures);
  return { t: row.t, figures: figures.success ? figures.data : {} };
}

export async function getContainers(deps: Deps, id: string, points?: number): Promise<TContainerSample[]> {
  const run = await deps.db.run.findUnique({ where: { id }, select: { host: true } });
  if (!run) throw runNotFound(id);
  // On an engine with nodes each container names the node it ran on (the run's host facts, written by the worker).
  const nodeOf = ZHostFacts.safeParse(run.host).data?.containerNodes ?? {};
  const rows = await deps.db.containerSample.findMany({ where: { runId: id }, orderBy: [{ t: "asc" }, { container: "asc" }] });
  const samples = rows.map((r) => ({ t: r.t, ...toContainerStat(r) }));
  const shown = points === undefined ? samples : downsampleContainers(samples, points);
  return shown.map((c) => (nodeOf[c.container] === undefined ? c : { ...c, node: nodeOf[c.container] }));
}

/**
 * A run's container readings by second, each second's containers by name. Read as one JSON array
 * built by Postgres: a 1 h run of 6 containers has 21,600 rows, read in half the time Prisma took.
 */
export async function readContainerSeconds(deps: Deps, id: string): Promise<TContainerSeconds[]> {
  const [row] = await deps.db.$queryRaw<{ rows: string }[]>`
    SELECT coalesce(json_agg(json_build_array("t", "container", "role", "cpu_pct", "mem_bytes", "throttled_periods",
      "periods", "throttled_ms", "net_rx_bps", "net_tx_bps") ORDER BY "t", "container"), '[]')::text AS "rows"
    FROM "container_samples" WHERE "run_id" = ${id}`;
  const rows = JSON.parse(row?.rows ?? "[]") as [number, string, string, number, number, number, ...(number | null)[]][];
  const byT = new Map<number, TContainerSeconds>();
  for (const r of rows) {
    let second = byT.get(r[0]);
    if (!second) byT.set(r[0], (second = { t: r[0], containers: [] }));
    second.containers.push(
      toContainerStat({
        container: r[1],
        role: r[2],
        cpuPct: r[3],
        memBytes: r[4],
        throttledPeriods: r[5],
        periods: r[6] ?? null,
        throttledMs: r[7] ?? null,
        netRxBps: r[8] ?? null,
        netTxBps: r[9] ?? null,
      }),
    );
  }
  return [...byT.values()];
}

/** A stored row as the live message has it; the columns added later are null in older rows and left out. */
function toContainerStat(r: Omit<ContainerSample, "runId" | "t" | "memBytes"> & { memBytes: bigint | number }): TContainerStat {
  return {
    container: r.container,
    role: r.role,
    cpuPct: r.cpuPct,
    memBytes: Number(r.memBytes),
    throttledPeriods: r.throttledPeriods,
    ...(r.periods !== null && { periods: r.periods }),
    ...(r.throttledMs !== null && { throttledMs: r.throttledMs }),
    ...(r.netRxBps !== null && { netRxBps: r.netRxBps }),
    ...(r.netTxBps !== null && { netTxBps: r.netTxBps }),
  };
}

const EVENTS_SHOWN = 200;

/** The latest events of the run's timeline, oldest first. */
export async function readEvents(deps: Deps, id: string): Promise<TRunEventView[]> {
  const rows = await deps.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "desc" }, take: EVENTS_SHOWN });
  return rows.reverse().map((e) => ({ id: e.id.toString(), at: e.at.toISOString(), level: e.level, step: e.step, message: e.message }));
}

/**
 * Asks the worker to stop the run. A run still waiting in the queue is removed from it and
 * cancelled here; a running one is cancelled by the worker (it listens on the cancel channel
 * and polls `cancel_requested`), which tears it down first.
 */
export async function cancelRun(deps: Deps, id: string): Promise<TRunRef> {
  const run = await getRun(deps, id);
  if (run.status !== "queued" && run.status !== "running") {
    throw new AppError("conflict", `run ${id} is already ${run.status}`);
  }
  await deps.db.run.update({ where: { id }, data: { cancelRequested: true } });

  if (run.status === "queued") {
    // remove() is 0 when the worker has already taken the job (it is locked): the worker
    // cancels it then. A job that is gone altogether has nobody left to cancel it but us.
    const removed = (await deps.queue.remove(id)) === 1 || !(await deps.queue.getJob(id));
    if (removed) {
      const now = new Date();
      const { count } = await deps.db.run.updateMany({
        where: { id, status: "queued" },
        data: { status: "cancelled", stepDetail: "cancelled before it started", finishedAt: now },
      });
      if (count === 1) {
        await deps.redis.publish(
          runChannel(id),
          encodeChannelMessage({
            type: "status",
            status: "cancelled",
            step: run.step,
            stepDetail: "cancelled before it started",
            error: null,
          }),
        );
        await deps.redis.publish(cancelChannel(id), encodeCancelMessage(id));
        return { id, status: "cancelled" };
      }
    }
  }
  await deps.redis.publish(cancelChannel(id), encodeCancelMessage(id));
  const after = await getRun(deps, id);
  return { id, status: after.status };
}

/**
 * Deletes a run with its samples, events and figures (the foreign keys cascade). A queued or
 * running one is cancelled first; one the worker holds is marked and deleted by the worker once
 * its containers are gone (`deleted: false`, REST 202), so no container outlives its row.
 */
export async function deleteRun(deps: Deps, id: string): Promise<TDeleted> {
  const { count } = await deps.db.run.updateMany({ where: { id }, data: { deleteRequested: true } });
  if (count === 0) throw runNotFound(id);
  return finishDelete(deps, id);
}

/** After `delete_requested` is set: cancels what is live, then deletes the row unless the worker holds it. */
export async function finishDelete(deps: Deps, id: string): Promise<TDeleted> {
  const row = await deps.db.run.findUnique({ where: { id }, select: { status: true } });
  if (!row) return { id, deleted: true };
  if (row.status === "queued" || row.status === "running") {
    await cancelRun(deps, id).catch((err: unknown) => {
      // Ended meanwhile: nothing to cancel.
      if (!(err instanceof AppError && err.kind === "conflict")) throw err;
    });
  }
  // The flag is set before this status check and the worker sets the end status before its own
  // check of the flag (worker jobs/run.ts), so one of the two always deletes the row.
  await deps.db.run.deleteMany({ where: { id, status: { notIn: ["queued", "running"] } } });
  const left = await deps.db.run.count({ where: { id } });
  return { id, deleted: left === 0 };
}

/** A new stand-alone run of the same definition (name, topology, workload, faults as defined), queued. */
export async function rerun(deps: Deps, id: string): Promise<TRunRef> {
  const row = await deps.db.run.findUnique({
    where: { id },
    select: { name: true, engine: true, topology: true, workload: true, faults: true, thresholds: true, regression: true },
  });
  if (!row) throw runNotFound(id);
  return createRun(deps, definitionOf(row));
}

/** The definition a run was created with: its faults without what happened to them (`actual`). */
export function definitionOf(
  row: Pick<Run, "name" | "topology" | "workload" | "faults" | "thresholds"> & Partial<Pick<Run, "regression" | "engine">>,
): TRunCreate {
  const parsed = ZRunCreate.safeParse({
    ...(row.name ? { name: row.name } : {}),
    ...(row.engine ? { engine: row.engine } : {}),
    topology: row.topology,
    workload: row.workload,
    faults: (Array.isArray(row.faults) ? (row.faults as { actual?: unknown }[]) : []).map(({ actual: _, ...f }) => f),
    thresholds: row.thresholds,
    ...(row.regression ? { regression: row.regression } : {}),
  });
  if (!parsed.success) {
    throw new AppError("conflict", "the run's stored definition is no longer valid and cannot be run again", [
      ...parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    ]);
  }
  return parsed.data;
}

/** At most this many samples per run in a compare (a run longer than that many seconds is downsampled). */
export const COMPARE_POINTS = 600;

/** The runs side by side, grouped into sides by definition, each side against the baseline run's with a verdict per figure. */
export async function compare(deps: Deps, ids: string[], baseline?: string) {
  const unique = [...new Set(ids)];
  const rows = await deps.db.run.findMany({ where: { id: { in: unique } } });
  const byId = await runViews(deps, rows);
  const missing = unique.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    // A 404, as for one unknown run: the request is well formed, what it names does not exist.
    const message = `ids must name existing runs; no run has the id ${missing.map((id) => id.slice(0, 64)).join(", ")}`;
    throw new AppError("not_found", message, [{ path: "ids", message }]);
  }
  const runs = unique.map((id) => byId.get(id)!);
  const baselineId = baseline ?? runs[0]!.id;
  const byRun = await readSamplesOf(deps, unique);
  // A long run's seconds as min and max per bucket: a chart draws no more points than it has pixels.
  const samples = runs.map((r) => ({ runId: r.id, samples: downsampleSamples(byRun.get(r.id) ?? [], COMPARE_POINTS) }));
  const groups = groupRuns(runs);
  return {
    runs,
    figures: compareRuns(runs, undefined, unique.indexOf(baselineId)),
    setup: setupRows(runs.map((r) => ({ ...r, ...(r.summary?.script && { script: r.summary.script }) }))),
    samples,
    baseline: baselineId,
    groups,
    verdicts: groupVerdicts(runs, groups, baselineId),
    reasons: reasonRows(runs, groups),
    singleSides: groups.filter((g) => g.counted.length < 2).map((g) => g.id),
    repeat: groups.length >= 2 ? repeatExperiment(runs, groups, baselineId) : null,
  };
}
