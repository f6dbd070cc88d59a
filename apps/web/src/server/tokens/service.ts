import { createApiToken, listApiTokens, revokeApiToken, type ApiTokenInfo } from "@scalelab/db/tokens";
import { ZTokenName } from "@scalelab/scenarios/contract";
import { z } from "zod";
import { AppError } from "../errors";
import type { Deps } from "../runtime";

const timestamp = z.iso.datetime();

export const ZTokenView = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe("the token's first characters (slb_ and 6 more), to tell tokens apart"),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable().describe("when it was last used, to the minute; null when never"),
  revokedAt: timestamp.nullable().describe("when it was revoked; null while it is valid"),
});
export type TTokenView = z.infer<typeof ZTokenView>;

export const ZTokenCreate = z.strictObject({ name: ZTokenName.describe("what the token is for, 1–80 characters (e.g. ci)") });

export const ZTokenCreated = ZTokenView.extend({
  token: z.string().describe("the token itself (slb_…): shown this once, never again; only its hash is stored"),
});

export const ZTokenId = z.object({ id: z.string().min(1).max(64) });

const view = (t: ApiTokenInfo): TTokenView => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  createdAt: t.createdAt.toISOString(),
  lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
  revokedAt: t.revokedAt?.toISOString() ?? null,
});

export async function createToken(deps: Pick<Deps, "db">, input: z.infer<typeof ZTokenCreate>) {
  const { token, info } = await createApiToken(deps.db, input.name);
  return { ...view(info), token };
}

export async function listTokens(deps: Pick<Deps, "db">): Promise<TTokenView[]> {
  return (await listApiTokens(deps.db)).map(view);
}

export async function revokeToken(deps: Pick<Deps, "db">, id: string): Promise<TTokenView> {
  const t = await revokeApiToken(deps.db, id);
  if (!t) throw new AppError("not_found", `token ${id} not found`);
  return view(t);
}
