import type { Prisma, Run } from "@scalelab/db";
import { describe, regressionCheck, type RegressionSide, type TRegression } from "@scalelab/scenarios/analysis";
import {
  DEFAULT_REGRESSION,
  isTerminal,
  ZRegressionSettings,
  ZRunSummary,
  type TRunStatus,
  type TRunSummary,
} from "@scalelab/scenarios/contract";
import { ZExperimentCreate, type TExperimentStatus } from "@scalelab/scenarios/experiments";
import { AppError, runNotFound } from "../errors";
import type { Deps } from "../runtime";
import { progressOf } from "../experiments/progress";
import type { TBaselineKind, TBaselineMark, THistory, THistoryInput, THistoryPoint } from "./types";

/**
 * Baselines: one run or experiment per kind and name (the `baselines` table), recorded by a later
 * run or experiment of that name when it is created (`baseline_id`, in the transaction of its
 * insert), and the regression check against it, computed on read from the stored summaries
 * (@scalelab/scenarios/analysis regression.ts).
 */

type Db = Deps["db"] | Prisma.TransactionClient;

/** The baseline of a name now, to record in a run or experiment being created (inside its insert's transaction). */
export async function baselineOfName(tx: Db, kind: TBaselineKind, name: string): Promise<string | null> {
  const row = await tx.baseline.findUnique({ where: { kind_name: { kind, name } }, select: { targetId: true } });
  return row?.targetId ?? null;
}

const summaryOf = (summary: unknown): TRunSummary | null => ZRunSummary.safeParse(summary).data ?? null;

/** The statuses of a run that failed (a cancelled one did not: it was stopped). */
const FAILED = new Set<string>(["failed", "interrupted"]);

function runSide(row: Pick<Run, "status" | "summary">): RegressionSide {
  const summary = summaryOf(row.summary);
  return {
    ended: isTerminal(row.status as TRunStatus),
    succeeded: row.status === "succeeded",
    variants: [
      {
        name: "run",
        summaries: row.status === "succeeded" && summary ? [summary] : [],
        failed: FAILED.has(row.status) ? 1 : 0,
      },
    ],
  };
}

const settingsOf = (raw: unknown) => ZRegressionSettings.safeParse(raw ?? {}).data ?? DEFAULT_REGRESSION;

type RunRow = Pick<Run, "id" | "status" | "summary" | "baselineId" | "regression">;

/** Each run's check against the baseline it recorded (null without one), its baselines read in one query. */
export async function runRegressions(db: Db, rows: readonly RunRow[]): Promise<Map<string, TRegression | null>> {
  const ids = [...new Set(rows.flatMap((r) => (r.baselineId ? [r.baselineId] : [])))];
  const baselines =
    ids.length === 0 ? [] : await db.run.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, summary: true } });
  const byId = new Map(baselines.map((b) => [b.id, b]));
  return new Map(
    rows.map((r) => {
      if (!r.baselineId) return [r.id, null];
      const base = byId.get(r.baselineId);
      return [
        r.id,
        regressionCheck({
          kind: "run",
          baselineId: r.baselineId,
          settings: settingsOf(r.regression),
          baseline: base ? runSide(base) : null,
          current: runSide(r),
        }),
      ];
    }),
  );
}

type ExperimentData = {
  id: string;
  name: string;
  createdAt: Date;
  baselineId: string | null;
  status: TExperimentStatus;
  settings: typeof DEFAULT_REGRESSION;
  variants: { name: string; summaries: TRunSummary[] }[];
};

/** A variant's repetitions whose runs failed with no succeeded run in their place (after the retry). */
function failedRepetitions(runs: readonly { variant: number | null; repetition: number | null; status: string }[], variant: number) {
  const own = runs.filter((r) => (r.variant ?? 0) === variant);
  const reps = new Set(own.filter((r) => FAILED.has(r.status)).map((r) => r.repetition ?? 0));
  for (const r of own) if (r.status === "succeeded") reps.delete(r.repetition ?? 0);
  return reps.size;
}

/** Experiments with their status (from their runs) and each variant's succeeded runs' summaries. */
async function loadExperiments(db: Db, where: Prisma.ExperimentWhereInput, opts: { take?: number } = {}): Promise<ExperimentData[]> {
  const rows = await db.experiment.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    ...(opts.take && { take: opts.take }),
  });
  if (rows.length === 0) return [];
  const runs = await db.run.findMany({
    where: { experimentId: { in: rows.map((e) => e.id) } },
    select: {
      experimentId: true,
      variant: true,
      repetition: true,
      attempt: true,
      status: true,
      startedAt: true,
      finishedAt: true,
      workload: true,
      summary: true,
    },
    orderBy: [{ createdAt: "asc" }, { attempt: "asc" }, { repetition: "asc" }, { variant: "asc" }],
  });
  return rows.map((e) => {
    const own = runs.filter((r) => r.experimentId === e.id);
    const names = Array.isArray(e.variants)
      ? (e.variants as { name?: unknown }[]).map((v, i) => (typeof v.name === "string" ? v.name : `#${i + 1}`))
      : [];
    const { status } = progressOf(e, own, names.length);
    const definition = ZExperimentCreate.safeParse(e.definition).data;
    return {
      id: e.id,
      name: e.name,
      createdAt: e.createdAt,
      baselineId: e.baselineId,
      status,
      settings: settingsOf(definition?.regression),
      variants: names.map((name, index) => ({
        name,
        summaries: own.flatMap((r) => {
          const s = (r.variant ?? 0) === index && r.status === "succeeded" ? summaryOf(r.summary) : null;
          return s ? [s] : [];
        }),
        failed: failedRepetitions(own, index),
      })),
    };
  });
}

const experimentSide = (e: ExperimentData): RegressionSide => ({
  ended: e.status !== "queued" && e.status !== "running",
  succeeded: e.status === "succeeded",
  variants: e.variants,
});

async function experimentRegressions(db: Db, experiments: readonly ExperimentData[]): Promise<Map<string, TRegression | null>> {
  const ids = [...new Set(experiments.flatMap((e) => (e.baselineId ? [e.baselineId] : [])))];
  const baselines = ids.length === 0 ? [] : await loadExperiments(db, { id: { in: ids } });
  const byId = new Map(baselines.map((b) => [b.id, b]));
  return new Map(
    experiments.map((e) => {
      if (!e.baselineId) return [e.id, null];
      const base = byId.get(e.baselineId);
      return [
        e.id,
        regressionCheck({
          kind: "experiment",
          baselineId: e.baselineId,
          settings: e.settings,
          baseline: base ? experimentSide(base) : null,
          current: experimentSide(e),
        }),
      ];
    }),
  );
}

/** An experiment's check against the baseline it recorded; null without one. */
export async function experimentRegression(db: Db, id: string): Promise<TRegression | null> {
  const [e] = await loadExperiments(db, { id });
  if (!e) return null;
  return (await experimentRegressions(db, [e])).get(id) ?? null;
}

export const experimentNotFound = (id: string) => new AppError("not_found", `experiment ${id} not found`);

/**
 * Makes the target the baseline of its name (replacing the one before). The checks done before
 * are done again inside the transaction with the target's row locked (FOR UPDATE): a delete that
 * came in between is either seen here (404), or waits for this commit and its trigger then unmarks
 * it; no baseline row is left pointing at a deleted run or experiment.
 */
async function mark(deps: Deps, kind: TBaselineKind, id: string, name: string): Promise<TBaselineMark> {
  return deps.db.$transaction(async (tx) => {
    if (kind === "run") {
      const [row] = await tx.$queryRaw<{ status: string; delete_requested: boolean }[]>`
        SELECT "status", "delete_requested" FROM "runs" WHERE "id" = ${id} FOR UPDATE`;
      if (!row || row.delete_requested) throw runNotFound(id);
      if (row.status !== "succeeded") {
        throw new AppError("conflict", `run ${id} is ${row.status}: only a run that succeeded can be a baseline`);
      }
    } else {
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "experiments" WHERE "id" = ${id} FOR UPDATE`;
      if (locked.length === 0) throw experimentNotFound(id);
      // Deleting an experiment marks its runs first: one marked is an experiment being deleted.
      if ((await tx.run.count({ where: { experimentId: id, deleteRequested: true } })) > 0) throw experimentNotFound(id);
      const [e] = await loadExperiments(tx, { id });
      if (!e) throw experimentNotFound(id);
      if (e.status !== "succeeded") throw notSucceeded(id, e.status);
    }
    const before = await tx.baseline.findUnique({ where: { kind_name: { kind, name } }, select: { targetId: true } });
    await tx.baseline.upsert({
      where: { kind_name: { kind, name } },
      create: { kind, name, targetId: id },
      update: { targetId: id, markedAt: new Date() },
    });
    return { kind, id, name, baseline: true, replaced: before && before.targetId !== id ? before.targetId : null };
  });
}

const notSucceeded = (id: string, status: TExperimentStatus) => {
  const why = status === "failed" ? "failed (some variant × repetition has no succeeded run)" : status;
  return new AppError(
    "conflict",
    `experiment ${id} is ${why}: only an experiment that finished with every run succeeded can be a baseline`,
  );
};

export async function markRunBaseline(deps: Deps, id: string): Promise<TBaselineMark> {
  const row = await deps.db.run.findUnique({
    where: { id },
    select: { name: true, status: true, experimentId: true, deleteRequested: true },
  });
  if (!row || row.deleteRequested) throw runNotFound(id);
  if (!row.name) {
    const message = `run ${id} has no name: only a named run can be the baseline of its name (give the runs you compare over time the same name)`;
    throw new AppError("unprocessable", message, [
      { path: "name", message: "name: a baseline is the baseline of a name, and this run has none" },
    ]);
  }
  if (row.experimentId) {
    throw new AppError(
      "conflict",
      `run ${id} is one of experiment ${row.experimentId}'s runs: mark the experiment as the baseline instead`,
    );
  }
  if (row.status !== "succeeded") {
    throw new AppError("conflict", `run ${id} is ${row.status}: only a run that succeeded can be a baseline`);
  }
  return mark(deps, "run", id, row.name);
}

export async function markExperimentBaseline(deps: Deps, id: string): Promise<TBaselineMark> {
  const [e] = await loadExperiments(deps.db, { id });
  if (!e) throw experimentNotFound(id);
  if (e.status !== "succeeded") throw notSucceeded(id, e.status);
  return mark(deps, "experiment", id, e.name);
}

async function unmark(deps: Deps, kind: TBaselineKind, id: string, name: string): Promise<TBaselineMark> {
  await deps.db.baseline.deleteMany({ where: { kind, targetId: id } });
  return { kind, id, name, baseline: false, replaced: null };
}

export async function unmarkRunBaseline(deps: Deps, id: string): Promise<TBaselineMark> {
  const row = await deps.db.run.findUnique({ where: { id }, select: { name: true } });
  if (!row) throw runNotFound(id);
  return unmark(deps, "run", id, row.name ?? "");
}

export async function unmarkExperimentBaseline(deps: Deps, id: string): Promise<TBaselineMark> {
  const row = await deps.db.experiment.findUnique({ where: { id }, select: { name: true } });
  if (!row) throw experimentNotFound(id);
  return unmark(deps, "experiment", id, row.name);
}

/** Whether the run or experiment is the baseline of its name now. */
export async function isBaseline(db: Db, kind: TBaselineKind, id: string): Promise<boolean> {
  return (await db.baseline.count({ where: { kind, targetId: id } })) > 0;
}

const ci = (d: { ciLow: number | null; ciHigh: number | null }) =>
  d.ciLow !== null && d.ciHigh !== null ? { low: d.ciLow, high: d.ciHigh } : null;

/** The latest `limit` runs or experiments of a name, oldest first, with their figures and verdicts. */
export async function history(deps: Deps, input: THistoryInput): Promise<THistory> {
  const baselineId = await baselineOfName(deps.db, input.kind, input.name);
  let points: THistoryPoint[];
  if (input.kind === "run") {
    const rows = await deps.db.run.findMany({
      where: { name: input.name, experimentId: null, deleteRequested: false },
      select: { id: true, createdAt: true, status: true, summary: true, baselineId: true, regression: true },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: input.limit,
    });
    const regressions = await runRegressions(deps.db, rows);
    points = rows.reverse().map((r) => {
      const s = r.status === "succeeded" ? summaryOf(r.summary) : null;
      return {
        id: r.id,
        createdAt: r.createdAt.toISOString(),
        status: r.status as TRunStatus,
        baseline: r.id === baselineId,
        baselineId: r.baselineId,
        verdict: regressions.get(r.id)?.verdict ?? null,
        rps: s?.rps ?? null,
        p95: s?.latencyMs.p95 ?? null,
        variants: null,
      };
    });
  } else {
    const rows = await loadExperiments(deps.db, { name: input.name }, { take: input.limit });
    const regressions = await experimentRegressions(deps.db, rows);
    points = rows.reverse().map((e) => ({
      id: e.id,
      createdAt: e.createdAt.toISOString(),
      status: e.status,
      baseline: e.id === baselineId,
      baselineId: e.baselineId,
      verdict: regressions.get(e.id)?.verdict ?? null,
      rps: null,
      p95: null,
      variants: e.variants.map((v) => {
        const rps = describe(v.summaries.map((s) => s.rps));
        const p95 = describe(v.summaries.flatMap((s) => (typeof s.latencyMs.p95 === "number" ? [s.latencyMs.p95] : [])));
        return { variant: v.name, runs: v.summaries.length, rps: rps.mean, p95: p95.mean, rpsCi: ci(rps), p95Ci: ci(p95) };
      }),
    }));
  }
  return { name: input.name, kind: input.kind, baselineId, points };
}
