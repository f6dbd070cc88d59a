import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "../args";
import { call } from "../client";
import { EXIT, UsageError, type ExitCode } from "../errors";
import type { Ctx } from "./context";
import { kindOf } from "./inspect";

/** Downloads a run's or an experiment's export (the lab's own files: GET …/export) to a file, or to stdout with -o -. */
export async function exportFile(ctx: Ctx, cmd: Extract<Command, { name: "export" }>): Promise<ExitCode> {
  const { lab } = ctx;
  const kind = await kindOf(ctx, cmd.id);
  const id = cmd.id;
  let text: string;
  if (kind === "run") {
    if (cmd.format === "html") {
      throw new UsageError(
        `${id} is a run: a run exports as csv or json; the HTML report is an experiment's (scalelab export <experiment id> --format html)`,
      );
    }
    if (cmd.table !== undefined) throw new UsageError(`--table is for an experiment's csv; a run's csv is its seconds`);
    const format = cmd.format;
    text = await call(lab, () => lab.api.GET("/runs/{id}/export", { params: { path: { id }, query: { format } }, parseAs: "text" }));
  } else {
    const query = { format: cmd.format, ...(cmd.table !== undefined && { table: cmd.table }) };
    text = await call(lab, () => lab.api.GET("/experiments/{id}/export", { params: { path: { id }, query }, parseAs: "text" }));
  }
  if (cmd.out === "-") {
    ctx.out(text);
    return EXIT.passed;
  }
  const file = path.resolve(ctx.env.cwd, cmd.out);
  await writeFile(file, text).catch((err: unknown) => {
    throw new UsageError(`-o ${cmd.out}: cannot write it (${(err as { code?: string }).code ?? String(err)})`);
  });
  if (!ctx.json)
    ctx.err(
      `wrote ${cmd.out}: the ${kind}'s ${cmd.format}${cmd.table ? ` (${cmd.table})` : ""}, ${Buffer.byteLength(text).toLocaleString("en-US")} bytes\n`,
    );
  else ctx.out(`${JSON.stringify({ id, kind, format: cmd.format, file, bytes: Buffer.byteLength(text) })}\n`);
  return EXIT.passed;
}
