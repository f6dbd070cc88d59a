import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import type { OpenApiMeta } from "trpc-to-openapi";
import { AppError, fieldIssuesOf, type AppErrorKind } from "./errors";
import type { Deps } from "./runtime";

export type Context = { deps: Deps };

/** `successStatus`: the REST status of a successful call when it is not 200 (e.g. 201 Created). */
export type Meta = OpenApiMeta<{ successStatus?: number }>;

const CODE: Record<AppErrorKind, TRPC_ERROR_CODE_KEY> = {
  invalid_input: "BAD_REQUEST",
  not_found: "NOT_FOUND",
  conflict: "CONFLICT",
  unavailable: "SERVICE_UNAVAILABLE",
};

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const issues = error.code === "BAD_REQUEST" ? fieldIssuesOf(error.cause) : null;
      return { ...shape, data: { ...shape.data, issues } };
    },
    sse: {
      ping: { enabled: true, intervalMs: 2_000 },
      client: { reconnectAfterInactivityMs: 6_000 },
    },
  });

const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: CODE[cause.kind], message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const procedure = t.procedure.use(appErrors);
export const createCallerFactory = t.createCallerFactory;
