import type { Command } from "../args";
import { call, isNotFound } from "../client";
import { CliError, EXIT, type ExitCode } from "../errors";
import { compareLines, presetRows, statusLines } from "../format";
import { printJson, type Ctx } from "./context";

export async function listPresets(ctx: Ctx): Promise<ExitCode> {
  const presets = await call(ctx.lab, () => ctx.lab.api.GET("/presets"));
  if (ctx.json) printJson(ctx, presets);
  else ctx.out(`${[...presetRows(presets), "", "run one: scalelab preset run <name> [--wait]"].join("\n")}\n`);
  return EXIT.passed;
}

export async function compare(ctx: Ctx, cmd: Extract<Command, { name: "compare" }>): Promise<ExitCode> {
  const query = { ids: cmd.ids, ...(cmd.baseline !== undefined && { baseline: cmd.baseline }) };
  const result = await call(ctx.lab, () => ctx.lab.api.GET("/compare", { params: { query } }));
  if (ctx.json) printJson(ctx, result);
  else ctx.out(`${[...compareLines(result), "", `${ctx.lab.url}/compare?ids=${cmd.ids.join(",")}`].join("\n")}\n`);
  return EXIT.passed;
}

/** The lab's host, its queue (what is running and waiting) and the latest runs. */
export async function status(ctx: Ctx): Promise<ExitCode> {
  const { lab } = ctx;
  const runs = (status: ("queued" | "running")[] | undefined, limit: number) =>
    call(lab, () => lab.api.GET("/runs", { params: { query: { ...(status && { status }), limit, order: status ? "oldest" : "newest" } } }));
  const [host, running, queued, latest] = await Promise.all([
    call(lab, () => lab.api.GET("/host")),
    runs(["running"], 10),
    runs(["queued"], 100),
    runs(undefined, 5),
  ]);
  if (ctx.json) printJson(ctx, { url: lab.url, host, queue: { running: running.items, queued: queued.items }, latest: latest.items });
  else ctx.out(`${statusLines({ url: lab.url, host, running: running.items, queued: queued.items, latest: latest.items }).join("\n")}\n`);
  return EXIT.passed;
}

/** Whether an id is a run's or an experiment's: the lab is asked for a run first. */
export async function kindOf(ctx: Ctx, id: string): Promise<"run" | "experiment"> {
  const { lab } = ctx;
  try {
    await call(lab, () => lab.api.GET("/runs/{id}", { params: { path: { id } } }));
    return "run";
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await call(lab, () => lab.api.GET("/experiments/{id}", { params: { path: { id } } }));
    return "experiment";
  } catch (err) {
    if (isNotFound(err)) throw new CliError(`no run or experiment has the id ${id} at ${lab.url}`, EXIT.usage);
    throw err;
  }
}

/** Cancels a run, or what is left of an experiment; the worker stops it and removes its containers. */
export async function cancel(ctx: Ctx, cmd: Extract<Command, { name: "cancel" }>): Promise<ExitCode> {
  const { lab } = ctx;
  const kind = await kindOf(ctx, cmd.id);
  const ref =
    kind === "run"
      ? await call(lab, () => lab.api.POST("/runs/{id}/cancel", { params: { path: { id: cmd.id } } }))
      : await call(lab, () => lab.api.POST("/experiments/{id}/cancel", { params: { path: { id: cmd.id } } }));
  if (ctx.json) printJson(ctx, ref);
  else ctx.out(`${kind} ${ref.id} ${ref.status === "cancelled" ? "cancelled" : `is being cancelled (${ref.status})`}\n`);
  return EXIT.passed;
}
