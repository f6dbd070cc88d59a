import type { AnyProcedure, AnyRouter } from "@trpc/server";
import type { Meta } from "../trpc";

export const REST_METHODS = ["GET", "POST", "PUT", "DELETE"] as const;
export type RestMethod = (typeof REST_METHODS)[number];

/** A REST endpoint: a procedure with an `openapi` meta (what trpc-to-openapi documents). */
export type Route = {
  method: RestMethod;
  /** As written in the meta, e.g. `/runs/{id}/cancel`. */
  template: string;
  /** The procedure's dotted tRPC path, e.g. `runs.cancel`. */
  procedure: string;
  type: "query" | "mutation";
  params: string[];
  successStatus: number;
  /** 202 instead of the success status when this says the result is not complete (a delete the worker finishes). */
  accepted?: (data: unknown) => boolean;
  /** The procedure returns a file (rest/file.ts): REST sends its body with its content type. */
  file: boolean;
  /** The procedure's input parser (a Zod schema), for the OpenAPI document. */
  input: unknown;
  pattern: RegExp;
};

export type RouteMatch =
  { kind: "found"; route: Route; params: Record<string, string> } | { kind: "method_not_allowed"; allow: string[] } | { kind: "not_found" };

const normalize = (path: string) => `/${path.replace(/^\/+|\/+$/g, "")}`;
export { normalize as normalizePath };

/**
 * An endpoint served by a handler of its own instead of a procedure, for a body tRPC cannot take
 * (the raw build context of `POST /images`); documented by hand in openapi.ts. Its path is literal.
 */
export type RawRoute = { method: "POST"; path: string; handle: (req: Request) => Promise<Response> };
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function compile(template: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = normalize(template)
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const param = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (!param) return escape(part);
      params.push(param);
      return "([^/]+)";
    })
    .join("");
  return { pattern: new RegExp(`^${source}$`), params };
}

/** The REST routes of a router, from the `openapi` meta of its procedures (subscriptions have none). */
export function routesOf(router: AnyRouter): Route[] {
  const procedures = router._def.procedures as Record<string, AnyProcedure>;
  const routes: Route[] = [];
  for (const [path, proc] of Object.entries(procedures)) {
    const meta = proc._def.meta as Meta | undefined;
    const openapi = meta?.openapi;
    if (!openapi || openapi.enabled === false) continue;
    const type = proc._def.type;
    if (type !== "query" && type !== "mutation") throw new Error(`${path}: only queries and mutations can be REST endpoints`);
    if (!(REST_METHODS as readonly string[]).includes(openapi.method))
      throw new Error(`${path}: REST endpoints are ${REST_METHODS.join(", ")}, not ${openapi.method}`);
    routes.push({
      method: openapi.method as RestMethod,
      ...(meta.accepted && { accepted: meta.accepted }),
      template: openapi.path,
      procedure: path,
      type,
      successStatus: meta.successStatus ?? 200,
      file: meta.file === true,
      input: (proc._def as { inputs?: unknown[] }).inputs?.[0],
      ...compile(openapi.path),
    });
  }
  return routes;
}

/** 1 for each literal segment of a template, 0 for a parameter: `/experiments/{id}` is [1, 0]. */
const literalness = (template: string) =>
  normalize(template)
    .split("/")
    .slice(1)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? 0 : 1));

/** Whether template a is more specific than b: a literal segment wins over a parameter at the first place they differ. */
function moreSpecific(a: string, b: string): boolean {
  const [x, y] = [literalness(a), literalness(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return false;
}

/**
 * The route of a method and a path (below the API's base). As OpenAPI says, a literal path wins
 * over a templated one: `/experiments/preview` is that path only, never `/experiments/{id}` with
 * id "preview". A path that exists with other methods is `method_not_allowed` with the methods it
 * has; HEAD is answered as GET. Path parameters are returned as they appear in the URL, still
 * percent-encoded.
 */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const wanted = method === "HEAD" ? "GET" : method;
  const at = normalize(path);
  let template: string | null = null;
  for (const route of routes) {
    if (route.pattern.test(at) && (template === null || moreSpecific(route.template, template))) template = normalize(route.template);
  }
  if (template === null) return { kind: "not_found" };
  const allow = new Set<string>();
  for (const route of routes) {
    if (normalize(route.template) !== template) continue;
    if (route.method !== wanted) {
      allow.add(route.method);
      continue;
    }
    const m = route.pattern.exec(at)!;
    const params: Record<string, string> = {};
    route.params.forEach((name, i) => (params[name] = m[i + 1]!));
    return { kind: "found", route, params };
  }
  if (allow.has("GET")) allow.add("HEAD");
  return { kind: "method_not_allowed", allow: [...allow, "OPTIONS"].sort() };
}
