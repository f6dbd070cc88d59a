import { ZRunCreate } from "@scalelab/scenarios/contract";
import { ZExperimentCreate } from "@scalelab/scenarios/experiments";
import type { ExperimentBody, ExperimentRef, RunBody } from "../api-types";
import type { Command, Threshold } from "../args";
import { call } from "../client";
import { EXIT, UsageError, type ExitCode } from "../errors";
import { experimentLines, summaryLine } from "../format";
import { experimentOutcome, markRefusal, runOutcome, type Outcome } from "../outcome";
import { applyAssignments, type Assignment } from "../set";
import { waitForExperiment, waitForRun } from "../wait";
import { printJson, type Ctx } from "./context";
import { readDefinition } from "./definition";
import { markBaseline } from "./baselines";

type Submit = Extract<Command, { name: "run" | "experiment" }>;

/** The definition as sent: the file, then each --set, --name, and the --threshold's added to the file's. */
export function definitionOf(
  doc: Record<string, unknown>,
  opts: { sets: Assignment[]; setName?: string; thresholds: Threshold[] },
  target: Parameters<typeof applyAssignments>[2],
): Record<string, unknown> {
  applyAssignments(doc, opts.sets, target);
  if (opts.setName !== undefined) doc.name = opts.setName;
  if (opts.thresholds.length > 0) doc.thresholds = [...(Array.isArray(doc.thresholds) ? doc.thresholds : []), ...opts.thresholds];
  return doc;
}

export const RUN_TARGET = { schema: ZRunCreate, what: "a run" };
export const EXPERIMENT_TARGET = { schema: ZExperimentCreate, what: "an experiment", fields: { base: ZRunCreate } };

/**
 * --mark-baseline: once it passed (its thresholds and its regression check), it becomes the
 * baseline of its name; a run or experiment that did not pass is not marked, and says so.
 */
async function markIfPassed(ctx: Ctx, kind: "run" | "experiment", id: string, outcome: Outcome, view: unknown): Promise<Outcome> {
  if (outcome.code !== EXIT.passed) return { ...outcome, lines: [...outcome.lines, `not marked as the baseline: it did not pass`] };
  const refusal = markRefusal(view);
  if (refusal !== null) return { ...outcome, lines: [...outcome.lines, `not marked as the baseline: ${refusal}`] };
  const mark = await markBaseline(ctx, kind, id);
  const replaced = mark.replaced ? ` (instead of ${mark.replaced})` : "";
  return { ...outcome, lines: [...outcome.lines, `marked as the baseline of "${mark.name}"${replaced}`] };
}

/** Prints an outcome's lines: on stdout for a person, on stderr beside --json's result (and only when it did not pass). */
function report(ctx: Ctx, outcome: Outcome, result: unknown, human: string[]): ExitCode {
  if (ctx.json) {
    printJson(ctx, result);
    if (outcome.code !== EXIT.passed) ctx.err(`${outcome.lines.join("\n")}\n`);
  } else {
    ctx.out(`${[outcome.lines[0]!, ...human, ...outcome.lines.slice(1)].join("\n")}\n`);
  }
  return outcome.code;
}

function stoppedWaiting(ctx: Ctx, what: "run" | "experiment", id: string): ExitCode {
  ctx.err(
    `\nstopped waiting; the ${what} goes on: ${id}\n  follow it: ${ctx.lab.url}/${what}s/${id}\n  cancel it: scalelab cancel ${id}\n`,
  );
  return EXIT.interrupted;
}

export async function submitRun(ctx: Ctx, cmd: Extract<Submit, { name: "run" }>): Promise<ExitCode> {
  const body = definitionOf(await readDefinition(cmd.file, ctx.env.cwd), cmd, RUN_TARGET);
  if (cmd.markBaseline && (typeof body.name !== "string" || body.name === "")) {
    throw new UsageError("--mark-baseline needs a named run: a baseline is the baseline of a name (give one with --name or in the file)");
  }
  const { lab } = ctx;
  const ref = await call(lab, () => lab.api.POST("/runs", { body: body as RunBody }));
  if (!cmd.wait) {
    if (ctx.json) printJson(ctx, ref);
    else ctx.out(`run ${ref.id} ${ref.status}: ${lab.url}/runs/${ref.id}\n`);
    return EXIT.passed;
  }
  if (!ctx.json) ctx.err(`run ${ref.id} ${ref.status}: ${lab.url}/runs/${ref.id}\n`);
  const run = await waitForRun(lab, ref.id, ctx.progress, ctx.signal);
  if (!run) return stoppedWaiting(ctx, "run", ref.id);
  const outcome = cmd.markBaseline ? await markIfPassed(ctx, "run", run.id, runOutcome(run), run) : runOutcome(run);
  return report(ctx, outcome, run, run.summary ? [`  ${summaryLine(run.summary)}`] : []);
}

async function followExperiment(ctx: Ctx, ref: ExperimentRef, wait: boolean, mark = false): Promise<ExitCode> {
  const { lab } = ctx;
  const queued = `experiment ${ref.id} ${ref.status}: ${ref.runs} runs, about ${Math.ceil(ref.estimatedSeconds / 60)} min: ${lab.url}/experiments/${ref.id}`;
  if (!wait) {
    if (ctx.json) printJson(ctx, ref);
    else ctx.out(`${queued}\n`);
    return EXIT.passed;
  }
  if (!ctx.json) ctx.err(`${queued}\n`);
  const view = await waitForExperiment(lab, ref.id, ctx.progress, ctx.signal);
  if (!view) return stoppedWaiting(ctx, "experiment", ref.id);
  const outcome = mark ? await markIfPassed(ctx, "experiment", view.id, experimentOutcome(view), view) : experimentOutcome(view);
  return report(
    ctx,
    outcome,
    view,
    experimentLines(view).map((l) => `  ${l}`),
  );
}

export async function submitExperiment(ctx: Ctx, cmd: Extract<Submit, { name: "experiment" }>): Promise<ExitCode> {
  const body = definitionOf(await readDefinition(cmd.file, ctx.env.cwd), cmd, EXPERIMENT_TARGET);
  const ref = await call(ctx.lab, () => ctx.lab.api.POST("/experiments", { body: body as ExperimentBody }));
  return followExperiment(ctx, ref, cmd.wait, cmd.markBaseline);
}

export async function runPreset(ctx: Ctx, cmd: Extract<Command, { name: "preset-run" }>): Promise<ExitCode> {
  const patch: Record<string, unknown> = {};
  applyAssignments(patch, cmd.sets, RUN_TARGET);
  const body = { ...(cmd.sets.length > 0 && { patch }), ...(cmd.repetitions !== undefined && { repetitions: cmd.repetitions }) };
  const ref = await call(ctx.lab, () => ctx.lab.api.POST("/presets/{name}/run", { params: { path: { name: cmd.preset } }, body }));
  return followExperiment(ctx, ref, cmd.wait, cmd.markBaseline);
}
