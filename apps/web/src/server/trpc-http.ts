import { getErrorShape, TRPCError, transformTRPCResponse, type AnyRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import {
  JsonTooDeepError,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  checkJsonDepth,
  declaredLength,
  isJsonContentType,
  requestMethod,
  withBodyLimit,
  type ApiHandlerOptions,
} from "./http";
import { WWW_AUTHENTICATE } from "./auth/auth";

export const TRPC_ENDPOINT = "/api/trpc";

export type TrpcHandlerOptions = ApiHandlerOptions & {
  endpoint?: string;
  /** How often a live stream opened with a token checks the caller again (default STREAM_RECHECK_MS). */
  streamRecheckMs?: number;
};

/** A live stream (a subscription's server-sent events) opened with a token ends within this long of the token's revocation. */
export const STREAM_RECHECK_MS = 30_000;

/**
 * A server-sent events answer that ends once `allowed` says no (checked every `everyMs`): cancelling
 * tRPC's body aborts the subscription. A failed check (the database away) leaves it open.
 */
function endWhenRefused(res: Response, allowed: () => Promise<boolean>, everyMs: number): Response {
  if (!res.body || !res.headers.get("content-type")?.startsWith("text/event-stream")) return res;
  const reader = res.body.getReader();
  const timer = setInterval(() => {
    allowed().then(
      (ok) => {
        if (!ok) void reader.cancel("the caller's token is no longer valid");
      },
      () => {},
    );
  }, everyMs);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await reader.read();
      if (!chunk.done) return controller.enqueue(chunk.value);
      clearInterval(timer);
      controller.close();
    },
    cancel(reason) {
      clearInterval(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

/** An error answered before tRPC runs, in the shape tRPC's own errors have (what the client reads). */
function trpcError(router: AnyRouter, error: TRPCError, headers?: HeadersInit): Response {
  const config = router._def._config;
  const shape = getErrorShape({ config, error, type: "unknown", path: undefined, input: undefined, ctx: undefined });
  return Response.json(transformTRPCResponse(config, { error: shape }), { status: getHTTPStatusCodeFromError(error), headers });
}

/** tRPC's methods: GET for queries (and HEAD), POST for mutations; OPTIONS lists them. */
const TRPC_ALLOW = "GET, HEAD, OPTIONS, POST";

/**
 * /api/trpc with guards in front of tRPC's fetch adapter.
 *
 * - A POST must be `application/json`. tRPC v11 itself refuses text/plain and a missing type
 *   (415), but accepts multipart/form-data, which an HTML form on any site can POST without a
 *   CORS preflight. With JSON required, a cross-site page cannot call a mutation: a browser
 *   only sends application/json cross-site after a preflight, which this server never grants.
 *   Mutations cannot be called with GET (tRPC answers 405 unless allowMethodOverride).
 * - A body is at most `maxBodyBytes`: a larger Content-Length is refused unread, and a streamed
 *   body is counted as tRPC reads it and fails with PAYLOAD_TOO_LARGE once past the limit
 *   (what tRPC's Node adapter does with `maxBodySize`, which the fetch adapter lacks).
 * - Any method but GET, HEAD and POST (TRACE and QUERY too: server/methods.ts) is a 405 with Allow, in
 *   tRPC's error shape; OPTIONS answers that Allow.
 * - JSON, in a body or in a GET's `input`, nests at most `maxJsonDepth` levels (BAD_REQUEST
 *   naming the limit), counted before tRPC parses it, as /api/v1 does.
 * - A subscription opened with a token (bearer or session) checks it again every
 *   `streamRecheckMs` and ends once the caller would be refused (the token revoked).
 */
export function createTrpcHandler(opts: TrpcHandlerOptions): (req: Request) => Promise<Response> {
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const log = opts.log ?? ((message: string, error: unknown) => console.error(message, error));
  const tooLarge = () => new TRPCError({ code: "PAYLOAD_TOO_LARGE", message: `The request body must be at most ${limit} bytes` });
  const depth = opts.maxJsonDepth ?? MAX_JSON_DEPTH;
  const tooDeep = () => new TRPCError({ code: "BAD_REQUEST", message: new JsonTooDeepError(depth).message });

  return async (req) => {
    const method = requestMethod(req);
    const auth = await opts.authenticate?.(req);
    if (auth && !auth.ok) {
      const code = auth.status === 401 ? "UNAUTHORIZED" : "FORBIDDEN";
      return trpcError(opts.router, new TRPCError({ code, message: auth.message }), auth.status === 401 ? WWW_AUTHENTICATE : undefined);
    }
    if (method === "OPTIONS") return new Response(null, { status: 204, headers: { allow: TRPC_ALLOW } });
    if (!["GET", "HEAD", "POST"].includes(method)) {
      const message = `${method} is not allowed here; allowed: ${TRPC_ALLOW} (GET for queries, POST for mutations)`;
      return trpcError(opts.router, new TRPCError({ code: "METHOD_NOT_SUPPORTED", message }), { allow: TRPC_ALLOW });
    }
    if (req.method === "POST" && !isJsonContentType(req.headers.get("content-type"))) {
      return trpcError(
        opts.router,
        new TRPCError({ code: "UNSUPPORTED_MEDIA_TYPE", message: "tRPC requests must be sent as content-type: application/json" }),
      );
    }
    if (req.method === "GET" || req.method === "HEAD") {
      try {
        checkJsonDepth(new URL(req.url).searchParams.get("input") ?? "", depth);
      } catch (err) {
        if (err instanceof JsonTooDeepError) return trpcError(opts.router, tooDeep());
        throw err;
      }
    }
    const declared = declaredLength(req);
    if (declared !== null && declared > limit) {
      await req.body?.cancel().catch(() => {});
      return trpcError(opts.router, tooLarge());
    }
    const res = await fetchRequestHandler({
      endpoint: opts.endpoint ?? TRPC_ENDPOINT,
      req: withBodyLimit(req, limit, tooLarge, { limit: depth, error: tooDeep }),
      router: opts.router,
      createContext: opts.createContext,
      onError: ({ error, path }) => {
        if (error.code === "INTERNAL_SERVER_ERROR") log(`tRPC ${path ?? "?"}:`, error.cause ?? error);
      },
    });
    const authenticate = opts.authenticate;
    if (!authenticate || !auth?.ok || auth.token === null) return res;
    return endWhenRefused(res, async () => (await authenticate(req)).ok, opts.streamRecheckMs ?? STREAM_RECHECK_MS);
  };
}
