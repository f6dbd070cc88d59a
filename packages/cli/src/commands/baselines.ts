import type { Command } from "../args";
import { call } from "../client";
import { CliError, EXIT, type ExitCode } from "../errors";
import { historyLines } from "../format";
import { printJson, type Ctx } from "./context";
import { kindOf } from "./inspect";

/** Marks a run or an experiment as the baseline of its name: later ones of that name are checked against it. */
export async function markBaseline(ctx: Ctx, kind: "run" | "experiment", id: string) {
  const { lab } = ctx;
  return kind === "run"
    ? call(lab, () => lab.api.PUT("/runs/{id}/baseline", { params: { path: { id } } }))
    : call(lab, () => lab.api.PUT("/experiments/{id}/baseline", { params: { path: { id } } }));
}

export async function baseline(ctx: Ctx, cmd: Extract<Command, { name: "baseline" }>): Promise<ExitCode> {
  const { lab } = ctx;
  const kind = await kindOf(ctx, cmd.id);
  const mark =
    cmd.action === "set"
      ? await markBaseline(ctx, kind, cmd.id)
      : kind === "run"
        ? await call(lab, () => lab.api.DELETE("/runs/{id}/baseline", { params: { path: { id: cmd.id } } }))
        : await call(lab, () => lab.api.DELETE("/experiments/{id}/baseline", { params: { path: { id: cmd.id } } }));
  if (ctx.json) printJson(ctx, mark);
  else if (mark.baseline)
    ctx.out(`${kind} ${mark.id} is the baseline of "${mark.name}"${mark.replaced ? ` (instead of ${mark.replaced})` : ""}\n`);
  else ctx.out(`${kind} ${mark.id} is not the baseline of "${mark.name}"\n`);
  return EXIT.passed;
}

export async function history(ctx: Ctx, cmd: Extract<Command, { name: "history" }>): Promise<ExitCode> {
  const { lab } = ctx;
  const query = { name: cmd.nameOf, kind: cmd.kind, ...(cmd.limit !== undefined && { limit: cmd.limit }) };
  const h = await call(lab, () => lab.api.GET("/history", { params: { query } }));
  if (ctx.json) printJson(ctx, h);
  else if (h.points.length === 0)
    throw new CliError(`no ${cmd.kind} is named "${cmd.nameOf}" at ${lab.url} (scalelab history <name> --kind run|experiment)`, EXIT.usage);
  else ctx.out(`${[...historyLines(h), "", `${lab.url}/history?name=${encodeURIComponent(cmd.nameOf)}&kind=${cmd.kind}`].join("\n")}\n`);
  return EXIT.passed;
}
