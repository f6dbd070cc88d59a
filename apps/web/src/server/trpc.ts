import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import type { OpenApiMeta } from "trpc-to-openapi";
import { AppError, fieldIssuesOf, invalidInput, type AppErrorKind } from "./errors";
import type { Deps } from "./runtime";
import { unstorableText } from "./storable";

export type Context = { deps: Deps };

/**
 * `successStatus`: the REST status of a successful call when it is not 200 (e.g. 201 Created).
 * `file`: the procedure returns a TFile (rest/file.ts); REST answers with its body as the file itself.
 * `accepted`: REST answers 202 Accepted instead when it says the result is not complete yet.
 */
export type Meta = OpenApiMeta<{ successStatus?: number; file?: boolean; accepted?: (data: unknown) => boolean }>;

const CODE: Record<AppErrorKind, TRPC_ERROR_CODE_KEY> = {
  invalid_input: "BAD_REQUEST",
  not_found: "NOT_FOUND",
  conflict: "CONFLICT",
  unavailable: "SERVICE_UNAVAILABLE",
  quota: "UNPROCESSABLE_CONTENT",
  queue_full: "TOO_MANY_REQUESTS",
  unprocessable: "UNPROCESSABLE_CONTENT",
};

/** The codes whose errors carry field issues: invalid input, and a quota's refusal (naming the field to change). */
export const ISSUE_CODES: ReadonlySet<string> = new Set(["BAD_REQUEST", "UNPROCESSABLE_CONTENT", "TOO_MANY_REQUESTS"]);

/** What a client is told of an unexpected error; the error itself is logged. */
export const INTERNAL_MESSAGE = "Internal server error";

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const issues = ISSUE_CODES.has(error.code) ? fieldIssuesOf(error.cause) : null;
      if (error.code === "INTERNAL_SERVER_ERROR") {
        // The message (and stack) of an unexpected error can carry internals: SQL, hosts, paths.
        // The adapters' onError logs the real error; the client gets a generic one.
        const { stack: _stack, ...data } = shape.data;
        return { ...shape, message: INTERNAL_MESSAGE, data: { ...data, issues } };
      }
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

/**
 * Postgres stores neither NUL bytes (`text`, `jsonb`) nor unpaired surrogates: any such string
 * or key in the raw input, whatever the schema, is refused as invalid input naming its field
 * before a parser or a query sees it, instead of failing in the database as a 500.
 */
const storableText = t.middleware(async ({ getRawInput, next }) => {
  const issues = unstorableText(await getRawInput());
  if (issues.length > 0) throw invalidInput(issues);
  return next();
});

export const router = t.router;
export const procedure = t.procedure.use(appErrors).use(storableText);
export const createCallerFactory = t.createCallerFactory;
