import { call } from "../client";
import { EXIT, type ExitCode } from "../errors";
import { engineRows } from "../format";
import { printJson, type Ctx } from "./context";

/** `engines`: the engines a run can name, each node with its CPUs and memory (GET /engines). */
export async function listEngines(ctx: Ctx): Promise<ExitCode> {
  const engines = await call(ctx.lab, () => ctx.lab.api.GET("/engines"));
  if (ctx.json) printJson(ctx, engines);
  else ctx.out(`${engineRows(engines).join("\n")}\n`);
  return EXIT.passed;
}
