import type { Command } from "../args";
import { call } from "../client";
import { EXIT, type ExitCode } from "../errors";
import { tokenRows } from "../format";
import { printJson, type Ctx } from "./context";

/**
 * `token create <name>`: the token alone on stdout (so `export SCALELAB_TOKEN=$(scalelab token
 * create ci)` works), what it is on stderr; the lab shows it this once.
 */
export async function createToken(ctx: Ctx, cmd: Extract<Command, { name: "token-create" }>): Promise<ExitCode> {
  const created = await call(ctx.lab, () => ctx.lab.api.POST("/tokens", { body: { name: cmd.tokenName } }));
  if (ctx.json) printJson(ctx, created);
  else {
    ctx.out(`${created.token}\n`);
    ctx.err(`token "${created.name}" (id ${created.id}): copy it now, the lab will not show it again\n`);
  }
  return EXIT.passed;
}

export async function listTokens(ctx: Ctx): Promise<ExitCode> {
  const tokens = await call(ctx.lab, () => ctx.lab.api.GET("/tokens"));
  if (ctx.json) printJson(ctx, tokens);
  else ctx.out(`${tokenRows(tokens).join("\n")}\n`);
  return EXIT.passed;
}

export async function revokeToken(ctx: Ctx, cmd: Extract<Command, { name: "token-revoke" }>): Promise<ExitCode> {
  const revoked = await call(ctx.lab, () => ctx.lab.api.DELETE("/tokens/{id}", { params: { path: { id: cmd.id } } }));
  if (ctx.json) printJson(ctx, revoked);
  else ctx.out(`revoked token "${revoked.name}" (${revoked.prefix}…, id ${revoked.id})\n`);
  return EXIT.passed;
}
