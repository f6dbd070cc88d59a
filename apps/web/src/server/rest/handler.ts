import { createOpenApiFetchHandler } from "trpc-to-openapi";
import { appRouter } from "../routers/_app";
import { deps } from "../runtime";
import { toRestError } from "./errors";
import { procedureMeta } from "./meta";

export const REST_BASE = "/api/v1";

/** A POST without a content type, typically without a body (`curl -X POST …/cancel`), is read as JSON. */
async function withJsonBody(req: Request): Promise<Request> {
  if (req.method !== "POST" || req.headers.get("content-type")) return req;
  const headers = new Headers(req.headers);
  headers.set("content-type", "application/json");
  const body = await req.text();
  return new Request(req.url, { method: req.method, headers, body: body || "{}", signal: req.signal });
}

export async function handleRest(request: Request): Promise<Response> {
  const req = await withJsonBody(request);
  const res = await createOpenApiFetchHandler({
    endpoint: REST_BASE,
    router: appRouter,
    req,
    createContext: () => ({ deps }),
    responseMeta: ({ paths, errors }) => {
      const status = errors.length === 0 && paths?.length === 1 ? procedureMeta(paths[0]!)?.successStatus : undefined;
      return status ? { status } : {};
    },
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`REST ${path ?? req.url}:`, error.cause ?? error);
    },
  });
  if (res.status < 400) return res;
  const body: unknown = await res.json().catch(() => null);
  return Response.json(toRestError(res.status, body), { status: res.status });
}
