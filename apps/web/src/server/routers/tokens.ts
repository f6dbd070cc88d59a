import { z } from "zod";
import { createToken, listTokens, revokeToken, ZTokenCreate, ZTokenCreated, ZTokenId, ZTokenView } from "../tokens/service";
import { procedure, router } from "../trpc";

const tags = ["tokens"];

export const tokensRouter = router({
  list: procedure
    .meta({
      openapi: {
        method: "GET",
        path: "/tokens",
        tags,
        protect: false,
        summary: "The API tokens, newest first, revoked ones too (never the tokens themselves)",
      },
    })
    .input(z.object({}).prefault({}))
    .output(z.array(ZTokenView))
    .query(({ ctx }) => listTokens(ctx.deps)),

  create: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/tokens",
        tags,
        protect: false,
        summary: "Make an API token: the answer holds the token itself, shown this once (only its SHA-256 is stored)",
        errorResponses: [400],
      },
      successStatus: 201,
    })
    .input(ZTokenCreate)
    .output(ZTokenCreated)
    .mutation(({ ctx, input }) => createToken(ctx.deps, input)),

  revoke: procedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/tokens/{id}",
        tags,
        protect: false,
        summary: "Revoke an API token: every call with it (and every dashboard session opened with it) is refused from now on",
        errorResponses: [404],
      },
    })
    .input(ZTokenId)
    .output(ZTokenView)
    .mutation(({ ctx, input }) => revokeToken(ctx.deps, input.id)),
});
