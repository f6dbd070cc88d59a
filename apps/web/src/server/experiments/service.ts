import { randomUUID } from "node:crypto";
import { Prisma, type Experiment, type Run } from "@scalelab/db";
import { runJob } from "@scalelab/scenarios/messages";
import { experimentStatistics } from "@scalelab/scenarios/analysis";
import {
  comparisonThresholdsOf,
  estimateSeconds,
  expandExperiment,
  experimentRecords,
  issueOrigin,
  RUN_OVERHEAD_SECONDS,
  ZExperimentCreate,
  type TExpansion,
  type TExperimentCreate,
} from "@scalelab/scenarios/experiments";
import { validateAgainstHost, validateAgainstNodes } from "@scalelab/scenarios/contract";
import { engineNodes } from "../engines/service";
import { presetByName } from "@scalelab/scenarios/experiments";
import { experimentFindings } from "@scalelab/scenarios/analysis";
import { ZHostFacts, ZRunSummary, type TRunStatus } from "@scalelab/scenarios/contract";
import { AppError, invalidInput, quotaExceeded, type FieldIssue } from "../errors";
import { experimentRefusal, experimentWarnings } from "@scalelab/scenarios/experiments";
import { admitToQueue, quotasOf, TX_OPTIONS } from "../quotas/service";
import { baselineOfName, experimentRegression, isBaseline } from "../baselines/service";
import { loadSecondsOf, progressOf } from "./progress";
import type { Deps } from "../runtime";
import { cancelRun, json, readHostBounds, withTimeout } from "../runs/service";
import { likeContains, likePrefix, pageOf, type TExperimentListInput } from "../runs/paging";
import type { TDeleted } from "../runs/types";
import {
  ZExperimentVariant,
  type TExperimentPage,
  type TExperimentPreview,
  type TExperimentRef,
  type TExperimentSummary,
  type TExperimentView,
} from "./types";

const ENQUEUE_TIMEOUT_MS = 10_000;

type Planned = {
  input: TExperimentCreate;
  expansion: Extract<TExpansion, { ok: true }>;
  estimatedSeconds: number;
  host: Awaited<ReturnType<typeof readHostBounds>>;
};

/**
 * Validates the definition as a whole and each variant against the host (a 400 naming every field
 * at fault), then its estimate against the lab's maximum (a 422 naming the field to change).
 */
async function plan(deps: Deps, input: TExperimentCreate): Promise<Planned> {
  const expansion = expandExperiment(input);
  if (!expansion.ok) throw invalidInput(expansion.issues);
  const host = await readHostBounds(deps.redis);
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const nodesOf = new Map<string, Awaited<ReturnType<typeof engineNodes>>>();
  for (const v of expansion.variants) {
    if (!nodesOf.has(v.run.engine)) nodesOf.set(v.run.engine, await engineNodes(deps, v.run.engine));
    const nodes = nodesOf.get(v.run.engine)!;
    for (const issue of nodes ? validateAgainstNodes(v.run, nodes) : validateAgainstHost(v.run, host)) {
      const path = issueOrigin(input, v.source, issue.path);
      const named = path.startsWith("variants.") ? (input.variants?.[v.source]?.name ?? v.name) : v.name;
      const message = path.startsWith("base") ? issue.message : `variant "${named}": ${issue.message}`;
      if (seen.has(path + message)) continue;
      seen.add(path + message);
      issues.push({ path, message });
    }
  }
  if (issues.length > 0) throw invalidInput(issues);
  const refusal = experimentRefusal(input, expansion.variants, quotasOf(deps));
  if (refusal) throw quotaExceeded(refusal);
  return { input, expansion, host, estimatedSeconds: estimateSeconds(expansion.variants, input.repetitions, input.settleSeconds) };
}

export async function previewExperiment(deps: Deps, input: TExperimentCreate): Promise<TExperimentPreview> {
  const { expansion, estimatedSeconds, host } = await plan(deps, input);
  return {
    runs: expansion.runs,
    estimatedSeconds,
    warnings: experimentWarnings(expansion.variants, host),
    baseline: expansion.variants[expansion.baseline]!.name,
    variants: expansion.variants.map((v) => ({ index: v.index, name: v.name, axes: v.axes, patch: v.patch })),
  };
}

/**
 * Inserts the experiment and all its runs (in the interleaved order) in one transaction, if the
 * queue has room for them (quotas/service.ts), then queues the runs in that order; if they cannot
 * be queued, nothing remains.
 */
export async function createExperiment(deps: Deps, input: TExperimentCreate, opts: { preset?: string } = {}): Promise<TExperimentRef> {
  const { expansion, estimatedSeconds } = await plan(deps, input);
  const id = randomUUID();
  const records = experimentRecords(input, expansion, { experiment: id, run: randomUUID }, opts);
  const runs = records.runs;
  await deps.db.$transaction(async (tx) => {
    await admitToQueue(tx, quotasOf(deps), { seconds: estimatedSeconds, what: "this experiment" });
    await tx.experiment.create({
      data: {
        ...records.experiment,
        definition: json(records.experiment.definition),
        variants: json(records.experiment.variants),
        baselineId: await baselineOfName(tx, "experiment", records.experiment.name),
      },
    });
    await tx.run.createMany({
      data: runs.map((r) => ({
        ...r,
        topology: json(r.topology),
        workload: json(r.workload),
        faults: json(r.faults),
        thresholds: json(r.thresholds),
      })),
    });
  }, TX_OPTIONS);
  const jobs = runs.map((r) => runJob(r.id));
  const adding = deps.queue.addBulk(jobs);
  try {
    await withTimeout(adding, ENQUEUE_TIMEOUT_MS, "queueing the experiment's runs");
  } catch (err) {
    adding.then(() => Promise.all(runs.map((r) => deps.queue.remove(r.id)))).catch(() => {});
    await deps.db.experiment.deleteMany({ where: { id } });
    throw new AppError("unavailable", "the experiment's runs could not be queued (is Redis up?); nothing was created", [], { cause: err });
  }
  return { id, status: "queued", runs: runs.length, estimatedSeconds: records.experiment.estimatedSeconds };
}

function referenceOf(name: string | null): TExperimentView["reference"] {
  const preset = name ? presetByName(name) : undefined;
  return preset ? { source: preset.source, expected: preset.expected, figures: preset.reference } : null;
}

export const experimentNotFound = (id: string) => new AppError("not_found", `experiment ${id} not found`);

const RUN_FIELDS = {
  id: true,
  name: true,
  status: true,
  step: true,
  error: true,
  variant: true,
  repetition: true,
  attempt: true,
  workload: true,
  thresholds: true,
  summary: true,
  host: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
} as const;
type RunRow = Pick<Run, keyof typeof RUN_FIELDS>;

const isOpenModel = (workload: unknown): boolean => typeof (workload as { arrivalRate?: unknown } | null)?.arrivalRate === "number";

const variantsOf = (e: Experiment) => ZExperimentVariant.array().parse(e.variants);

async function readRuns(deps: Deps, experimentId: string): Promise<RunRow[]> {
  // Queue order: creation order, then the retries as they were added.
  return deps.db.run.findMany({
    where: { experimentId },
    select: RUN_FIELDS,
    orderBy: [{ createdAt: "asc" }, { attempt: "asc" }, { repetition: "asc" }, { variant: "asc" }],
  });
}

/** Runs of other work that the queue takes before this experiment's next one (FIFO, one at a time). */
async function workAhead(deps: Deps, experimentId: string, runs: RunRow[]): Promise<{ aheadRuns: number; aheadSeconds: number }> {
  const next = runs.find((r) => r.status === "queued");
  if (!next || runs.some((r) => r.status === "running")) return { aheadRuns: 0, aheadSeconds: 0 };
  const ahead = await deps.db.run.findMany({
    where: {
      status: { in: ["queued", "running"] },
      createdAt: { lt: next.createdAt },
      OR: [{ experimentId: null }, { experimentId: { not: experimentId } }],
    },
    select: { workload: true, status: true, startedAt: true },
  });
  const seconds = ahead.reduce((n, r) => {
    const whole = loadSecondsOf(r.workload) + RUN_OVERHEAD_SECONDS;
    return n + (r.status === "running" && r.startedAt ? Math.max(0, whole - (Date.now() - r.startedAt.getTime()) / 1000) : whole);
  }, 0);
  return { aheadRuns: ahead.length, aheadSeconds: Math.round(seconds) };
}

export async function getExperiment(deps: Deps, id: string): Promise<TExperimentView> {
  const e = await deps.db.experiment.findUnique({ where: { id } });
  if (!e) throw experimentNotFound(id);
  const runs = await readRuns(deps, id);
  const variants = variantsOf(e);
  const { status, progress: own } = progressOf(e, runs, variants.length);
  const progress = { ...own, ...(await workAhead(deps, id, runs)) };
  const definition = ZExperimentCreate.parse(e.definition);
  const summaries = runs.map((r) => ZRunSummary.safeParse(r.summary).data ?? null);
  const stats = experimentStatistics({
    variants: variants.map((v, index) => ({ index, name: v.name, axes: v.axes })),
    baseline: e.baseline,
    sweep: definition.sweep ?? [],
    runs: runs.map((r, i) => ({ variant: r.variant ?? 0, status: r.status as TRunStatus, summary: summaries[i]! })),
    thresholds: {
      comparison: comparisonThresholdsOf(definition),
      runThresholds: runs.some((r) => Array.isArray(r.thresholds) && r.thresholds.length > 0),
    },
  });
  const findings = experimentFindings(
    stats,
    variants.map((v, index) => ({
      name: v.name,
      runs: runs.flatMap((r, i) =>
        (r.variant ?? 0) === index && r.status === "succeeded" && summaries[i]
          ? [
              {
                summary: summaries[i],
                hostCpus: ZHostFacts.safeParse(r.host).data?.cpus ?? null,
                sharedMachine: ZHostFacts.safeParse(r.host).data?.sharedMachine === true,
                openModel: isOpenModel(r.workload),
              },
            ]
          : [],
      ),
    })),
    e.baseline,
  );
  return {
    id: e.id,
    name: e.name,
    status,
    preset: e.preset,
    createdAt: e.createdAt.toISOString(),
    repetitions: e.repetitions,
    settleSeconds: e.settleSeconds,
    estimatedSeconds: e.estimatedSeconds,
    cancelRequested: e.cancelRequested,
    definition,
    progress,
    baseline: variants[e.baseline]?.name ?? null,
    variants: variants.map((v, index) => ({
      index,
      name: v.name,
      axes: v.axes,
      patch: v.patch,
      runs: runs
        .filter((r) => (r.variant ?? 0) === index)
        .map((r) => ({
          id: r.id,
          repetition: r.repetition ?? 0,
          attempt: r.attempt,
          status: r.status as TRunStatus,
          step: r.step,
          error: r.error,
          rps: ZRunSummary.safeParse(r.summary).data?.rps ?? null,
        })),
      statistics: stats.variants[index]!,
    })),
    comparisons: stats.comparisons,
    usl: stats.usl,
    uslNote: stats.uslNote,
    thresholds: stats.thresholds,
    regression: await experimentRegression(deps.db, e.id),
    markedBaseline: await isBaseline(deps.db, "experiment", e.id),
    findings,
    reference: referenceOf(e.preset),
  };
}

/** A page of experiments, newest first or oldest first (`order`), after the cursor, with a name search (`q`, also an id's start) and from/to on created_at. */
export async function listExperiments(deps: Deps, input: TExperimentListInput): Promise<TExperimentPage> {
  const where: Prisma.Sql[] = [Prisma.sql`TRUE`];
  // Constants, never user text: the order is one of ORDERS.
  const [after, dir] = input.order === "oldest" ? [Prisma.raw(">"), Prisma.raw("ASC")] : [Prisma.raw("<"), Prisma.raw("DESC")];
  if (input.cursor) where.push(Prisma.sql`("created_at", "id") ${after} (${input.cursor.createdAt}, ${input.cursor.id})`);
  if (input.q) {
    where.push(
      Prisma.sql`("name" ILIKE ${likeContains(input.q)} ESCAPE '\\' OR "id" LIKE ${likePrefix(input.q.toLowerCase())} ESCAPE '\\')`,
    );
  }
  if (input.from) where.push(Prisma.sql`"created_at" >= ${input.from}`);
  if (input.to) where.push(Prisma.sql`"created_at" <= ${input.to}`);
  const keys = await deps.db.$queryRaw<{ id: string; created_at: Date }[]>`
    SELECT "id", "created_at" FROM "experiments" WHERE ${Prisma.join(where, " AND ")}
    ORDER BY "created_at" ${dir}, "id" ${dir} LIMIT ${input.limit + 1}`;
  const page = pageOf(
    keys.map((k) => ({ id: k.id, createdAt: k.created_at })),
    input.limit,
    input.order,
  );
  const found = await deps.db.experiment.findMany({ where: { id: { in: page.rows.map((r) => r.id) } } });
  const byId = new Map(found.map((e) => [e.id, e]));
  const rows = page.rows.flatMap((k) => byId.get(k.id) ?? []);
  const runs = await deps.db.run.findMany({
    where: { experimentId: { in: rows.map((r) => r.id) } },
    select: { ...RUN_FIELDS, experimentId: true },
  });
  const items = rows.map((e): TExperimentSummary => {
    const own = runs.filter((r) => r.experimentId === e.id);
    const variants = variantsOf(e).length;
    const { status, progress } = progressOf(e, own, variants);
    return {
      id: e.id,
      name: e.name,
      status,
      preset: e.preset,
      createdAt: e.createdAt.toISOString(),
      variants,
      repetitions: e.repetitions,
      progress,
    };
  });
  return { items, nextCursor: page.nextCursor };
}

/**
 * Deletes an experiment with its runs and their samples, events and figures. What is left is
 * cancelled first; a run the worker still holds is detached from the experiment, marked, and
 * deleted by the worker once its containers are gone (`deleted: false`, REST 202).
 */
export async function deleteExperiment(deps: Deps, id: string): Promise<TDeleted> {
  const e = await deps.db.experiment.findUnique({ where: { id }, select: { id: true } });
  if (!e) throw experimentNotFound(id);
  await deps.db.run.updateMany({ where: { experimentId: id }, data: { deleteRequested: true } });
  await cancelExperiment(deps, id);
  const held = await deps.db.run.findMany({ where: { experimentId: id, status: { in: ["queued", "running"] } }, select: { id: true } });
  const heldIds = held.map((r) => r.id);
  await deps.db.$transaction([
    deps.db.run.updateMany({ where: { id: { in: heldIds } }, data: { experimentId: null, variant: null, repetition: null } }),
    deps.db.experiment.deleteMany({ where: { id } }),
  ]);
  // Those that ended meanwhile: the worker found them still in the experiment, or not yet marked.
  await deps.db.run.deleteMany({ where: { id: { in: heldIds }, status: { notIn: ["queued", "running"] } } });
  const left = await deps.db.run.count({ where: { id: { in: heldIds } } });
  return { id, deleted: left === 0 };
}

/** Cancels what is left: queued runs leave the queue, the running one is torn down by the worker. */
export async function cancelExperiment(deps: Deps, id: string): Promise<TExperimentRef> {
  const e = await deps.db.experiment.findUnique({ where: { id } });
  if (!e) throw experimentNotFound(id);
  await deps.db.experiment.update({ where: { id }, data: { cancelRequested: true } });
  const live = await deps.db.run.findMany({
    where: { experimentId: id, status: { in: ["queued", "running"] } },
    select: { id: true },
    orderBy: { createdAt: "desc" },
  });
  for (const r of live) {
    await cancelRun(deps, r.id).catch((err: unknown) => {
      // A run that ended meanwhile cannot be cancelled any more, which is fine.
      if (!(err instanceof AppError && err.kind === "conflict")) throw err;
    });
  }
  const view = await getExperiment(deps, id);
  return { id, status: view.status, runs: view.progress.total, estimatedSeconds: e.estimatedSeconds };
}
