import { callTRPCProcedure, getTRPCErrorFromUnknown } from "@trpc/server";
import { appRouter } from "../routers/_app";
import { deps } from "../runtime";
import type { FieldIssue } from "../errors";
import {
  BodyTooLargeError,
  JsonTooDeepError,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  checkJsonDepth,
  declaredLength,
  isCrossSiteBrowserRequest,
  isJsonContentType,
  mediaType,
  readBody,
  requestMethod,
  type ApiHandlerOptions,
} from "../http";
import { fromTrpcError, invalidInputError, restError, type TRestError } from "./errors";
import { fileResponse, ZFile } from "./file";
import { matchRoute, normalizePath, routesOf, type RawRoute, type Route, type RouteMatch } from "./routes";
import { createImageUpload } from "../images/upload";
import { WWW_AUTHENTICATE } from "../auth/auth";
import { authenticateRequest } from "../auth/request";

export const REST_BASE = "/api/v1";

export type RestHandlerOptions = ApiHandlerOptions & {
  /** The path the API is mounted at; default /api/v1. */
  base?: string;
  /** Endpoints with a handler of their own (routes.ts RawRoute), matched before the procedures. */
  raw?: readonly RawRoute[];
};

/** A failure of the request itself, answered before any procedure runs. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: TRestError,
  ) {
    super(body.message);
  }
}

const unsupported = (message: string) => new Refusal(415, { error: "unsupported_media_type", message });

/**
 * The input a POST body gives: undefined for an empty body, otherwise the parsed JSON.
 *
 * - A body must be `application/json` (415 otherwise): form, multipart and text/plain bodies
 *   are what a page of another site can send without a CORS preflight.
 * - A POST without a content type is accepted only when its body is truly empty (Content-Length
 *   0 or absent, and no byte arrives), which makes `curl -X POST …/runs/{id}/cancel` work, and
 *   only when it is not a browser's cross-site request (Sec-Fetch-Site / Origin): a no-cors
 *   `fetch()` from another site can send exactly that.
 * - More than `limit` bytes is a 413, decided by Content-Length before reading, or while reading.
 * - JSON nested more than `depth` levels is a 400 naming the limit, decided on the text before
 *   it is parsed, so no recursive code (a key check, a merge, a schema) ever walks it.
 */
async function readJsonInput(req: Request, limit: number, depth: number): Promise<unknown> {
  const contentType = req.headers.get("content-type");
  const type = mediaType(contentType);
  if (type === null) {
    if (isCrossSiteBrowserRequest(req)) throw unsupported("A request from another site must send content-type: application/json");
    const declared = declaredLength(req);
    const missing = unsupported("Missing content-type header: a request body must be sent as application/json");
    if (declared !== null && declared !== 0) throw missing;
    await readBody(req, 0).catch((err: unknown) => {
      throw err instanceof BodyTooLargeError ? missing : err;
    });
    return undefined;
  }
  if (!isJsonContentType(contentType)) {
    throw unsupported(`Unsupported content-type "${type.slice(0, 100)}": send application/json (UTF-8)`);
  }
  const bytes = await readBody(req, limit).catch((err: unknown) => {
    throw err instanceof BodyTooLargeError
      ? new Refusal(413, { error: "payload_too_large", message: `The request body must be at most ${limit} bytes` })
      : err;
  });
  if (bytes.byteLength === 0) return undefined;
  try {
    checkJsonDepth(bytes, depth);
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw new Refusal(400, { error: "invalid_json", message: err.message });
    throw err;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Refusal(400, { error: "invalid_json", message: "The request body is not valid UTF-8" });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const detail = err instanceof Error ? `: ${err.message.slice(0, 200)}` : "";
    throw new Refusal(400, { error: "invalid_json", message: `The request body is not valid JSON${detail}` });
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Query parameters as strings, or arrays of strings when repeated (`?ids=a&ids=b`). */
function queryInput(params: URLSearchParams): Record<string, string | string[]> {
  // fromEntries defines own properties, so a parameter named __proto__ stays a plain key.
  return Object.fromEntries(
    [...new Set(params.keys())].map((key) => {
      const all = params.getAll(key);
      return [key, all.length === 1 ? all[0]! : all];
    }),
  );
}

function pathInput(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(raw)) {
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      issues.push({ path: name, message: `${name} is not valid percent-encoded UTF-8` });
    }
  }
  if (issues.length > 0) throw new Refusal(400, invalidInputError(issues));
  return out;
}

async function inputOf(
  req: Request,
  url: URL,
  route: Route,
  params: Record<string, string>,
  limits: { bytes: number; depth: number },
): Promise<unknown> {
  const fromPath = pathInput(params);
  if (route.method === "GET") return { ...queryInput(url.searchParams), ...fromPath };
  // A DELETE names its resource in the path; a body, if any, is not read.
  if (route.method === "DELETE") return { ...fromPath };
  const body = await readJsonInput(req, limits.bytes, limits.depth);
  if (body === undefined) return { ...fromPath };
  if (!isPlainObject(body)) {
    throw new Refusal(400, invalidInputError([{ path: "", message: "the body must be a JSON object" }]));
  }
  // The path names the resource: an `id` in the body cannot override it.
  return { ...body, ...fromPath };
}

/**
 * The REST API: every procedure with an `openapi` meta, at its method and path, called through
 * tRPC with the same middlewares and the same input schemas as over /api/trpc. The request is
 * read here, not by trpc-to-openapi's fetch adapter: on every request that adapter runs its
 * `coerceSchema` over the procedure's input schema, which sets `_zod.def.coerce = true` on every
 * number, boolean, bigint and date schema nested in it, for bodies as well as query strings.
 * Those are the shared schemas of @scalelab/scenarios, so after one REST call `"5"`, `true` and
 * `[1]` parsed as numbers everywhere, tRPC included. trpc-to-openapi now only generates the
 * OpenAPI document (openapi.ts). Query parameters are strings: a GET input that wants a number
 * says which strings it takes (routers/runs.ts `limit`: decimal digits). Every error is JSON in
 * the ZRestError shape.
 */
export function createRestHandler(opts: RestHandlerOptions): (req: Request) => Promise<Response> {
  const routes = routesOf(opts.router);
  const base = opts.base ?? REST_BASE;
  const limits = { bytes: opts.maxBodyBytes ?? MAX_BODY_BYTES, depth: opts.maxJsonDepth ?? MAX_JSON_DEPTH };
  const log = opts.log ?? ((message: string, error: unknown) => console.error(message, error));

  return async (req) => {
    const method = requestMethod(req);
    let label = `REST ${method} ${req.url}`;
    try {
      const auth = await opts.authenticate?.(req);
      if (auth && !auth.ok) {
        return restError(auth.status, { error: auth.error, message: auth.message }, auth.status === 401 ? WWW_AUTHENTICATE : undefined);
      }
      const url = new URL(req.url);
      const path = url.pathname === base ? "/" : url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : null;
      const raws = path === null ? [] : (opts.raw ?? []).filter((r) => normalizePath(r.path) === normalizePath(path));
      const raw = raws.find((r) => r.method === method);
      if (raw) return await raw.handle(req);
      let match: RouteMatch = path === null ? ({ kind: "not_found" } as const) : matchRoute(routes, method, path);
      if (raws.length > 0 && match.kind !== "found") {
        const allow = new Set([...(match.kind === "method_not_allowed" ? match.allow : ["OPTIONS"]), ...raws.map((r) => r.method)]);
        match = { kind: "method_not_allowed", allow: [...allow].sort() };
      }

      if (match.kind === "not_found") {
        return restError(404, { error: "not_found", message: `No endpoint ${url.pathname}; see ${base}/openapi.json` });
      }
      if (match.kind === "method_not_allowed") {
        const allow = match.allow.join(", ");
        if (method === "OPTIONS") return new Response(null, { status: 204, headers: { allow } });
        return restError(405, { error: "method_not_allowed", message: `${method} is not allowed here; allowed: ${allow}` }, { allow });
      }

      const { route, params } = match;
      label = `REST ${route.method} ${route.template} (${route.procedure})`;
      const input = await inputOf(req, url, route, params, limits);
      const data: unknown = await callTRPCProcedure({
        router: opts.router,
        path: route.procedure,
        type: route.type,
        getRawInput: async () => input,
        ctx: await opts.createContext(),
        signal: req.signal,
        batchIndex: 0,
      });
      if (route.file) return fileResponse(ZFile.parse(data));
      return Response.json(data ?? null, { status: route.accepted?.(data) ? 202 : route.successStatus });
    } catch (cause) {
      if (cause instanceof Refusal) return restError(cause.status, cause.body);
      const error = getTRPCErrorFromUnknown(cause);
      const { status, body, headers } = fromTrpcError(error);
      if (body.error === "internal") log(`${label}:`, error.cause ?? error);
      return restError(status, body, headers);
    }
  };
}

export const handleRest = createRestHandler({
  router: appRouter,
  createContext: () => ({ deps }),
  authenticate: authenticateRequest,
  raw: [{ method: "POST", path: "/images", handle: createImageUpload({ docker: () => deps.docker }) }],
});
