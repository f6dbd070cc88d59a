import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import * as openapiRoute from "~/app/api/v1/openapi.json/route";
import { ORIGINAL_METHOD_HEADER } from "./http";
import { createRestHandler } from "./rest/handler";
import { appRouter } from "./routers/_app";
import { fakeDeps } from "./testing";
import { handOnUnroutableMethods } from "./methods";
import { createTrpcHandler } from "./trpc-http";

const servers: Server[] = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r)))));

/** A server that answers like Next.js does: a fetch Request built from the Node request, then a route handler. */
async function serve(handOn: boolean) {
  const { deps } = fakeDeps();
  const rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }), log: () => {} });
  const trpc = createTrpcHandler({ router: appRouter, createContext: () => ({ deps }), log: () => {} });
  const seen: { method?: string; marker?: string | string[] }[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    seen.push({ method: req.method, marker: req.headers[ORIGINAL_METHOD_HEADER] });
    try {
      const headers = new Headers(req.headers as Record<string, string>);
      const fetchReq = new Request(`http://lab.test${req.url}`, { method: req.method, headers });
      const out = await (req.url!.startsWith("/api/trpc") ? trpc : rest)(fetchReq);
      res.writeHead(out.status, Object.fromEntries(out.headers));
      res.end(await out.text());
    } catch (err) {
      res.writeHead(500, { "content-type": "text/html" });
      res.end(`<html>${String(err)}</html>`);
    }
  });
  if (handOn) handOnUnroutableMethods(server);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const send = (method: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; type: string; allow?: string; body: string }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, type: String(res.headers["content-type"]), allow: res.headers.allow, body }),
        );
      });
      req.on("error", reject);
      req.end();
    });
  return { send, seen };
}

describe("methods Next.js cannot route: TRACE, QUERY, PROPFIND", () => {
  it("root cause: a fetch Request cannot carry TRACE, so a framework that builds one fails (Next.js: a 500 page)", async () => {
    expect(() => new Request("http://lab.test/", { method: "TRACE" })).toThrow("'TRACE' HTTP method is unsupported");
    const { send } = await serve(false);
    expect((await send("TRACE", "/api/v1/runs")).status).toBe(500);
  });

  it.each(["QUERY", "PROPFIND", "PURGE"])("%s on /api/v1 is a JSON 405 with Allow too (Next.js answered an empty 400)", async (method) => {
    const { send, seen } = await serve(true);
    const res = await send(method, "/api/v1/runs/abc/samples");
    expect(res).toMatchObject({ status: 405, allow: "GET, HEAD, OPTIONS" });
    expect(JSON.parse(res.body)).toMatchObject({ message: `${method} is not allowed here; allowed: GET, HEAD, OPTIONS` });
    expect(seen).toEqual([{ method: "PATCH", marker: method }]);
  });

  it("on /api/v1 is a JSON 405 with the path's Allow, like DELETE; an unknown path is a 404", async () => {
    const { send } = await serve(true);
    const trace = await send("TRACE", "/api/v1/runs");
    expect(trace).toMatchObject({ status: 405, type: expect.stringContaining("application/json"), allow: "GET, HEAD, OPTIONS, POST" });
    expect(JSON.parse(trace.body)).toEqual({
      error: "method_not_allowed",
      message: "TRACE is not allowed here; allowed: GET, HEAD, OPTIONS, POST",
    });
    const del = await send("DELETE", "/api/v1/runs");
    expect([del.status, del.allow]).toEqual([405, trace.allow]);
    expect((await send("TRACE", "/api/v1/experiments/preview")).allow).toBe("OPTIONS, POST");
    expect((await send("TRACE", "/api/v1/nope")).status).toBe(404);
  });

  it("on /api/trpc is a 405 in tRPC's error shape, as PUT, PATCH and DELETE are", async () => {
    const { send } = await serve(true);
    for (const method of ["TRACE", "PUT", "PATCH", "DELETE"]) {
      const res = await send(method, "/api/trpc/runs.list");
      expect(res, method).toMatchObject({ status: 405, allow: "GET, HEAD, OPTIONS, POST" });
      expect(JSON.parse(res.body), method).toMatchObject({
        error: { message: expect.stringContaining(`${method} is not allowed here`), data: { code: "METHOD_NOT_SUPPORTED" } },
      });
    }
  });

  it("OPTIONS lists only the methods that work, on /api/trpc and /api/v1/openapi.json as on /api/v1", async () => {
    const { send } = await serve(true);
    expect(await send("OPTIONS", "/api/trpc/runs.list")).toMatchObject({ status: 204, allow: "GET, HEAD, OPTIONS, POST" });
    const options = openapiRoute.OPTIONS();
    expect([options.status, options.headers.get("allow")]).toEqual([204, "GET, HEAD, OPTIONS"]);
  });

  it("on /api/v1/openapi.json (a route of its own) is a JSON 405 too, as POST and DELETE are", async () => {
    const marked = new Request("http://lab.test/api/v1/openapi.json", { method: "PATCH", headers: { [ORIGINAL_METHOD_HEADER]: "TRACE" } });
    for (const [handler, req, method] of [
      [openapiRoute.PATCH, marked, "TRACE"],
      [openapiRoute.DELETE, new Request("http://lab.test/api/v1/openapi.json", { method: "DELETE" }), "DELETE"],
    ] as const) {
      const res = handler(req);
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      expect(await res.json()).toEqual({
        error: "method_not_allowed",
        message: `${method} is not allowed here; allowed: GET, HEAD, OPTIONS`,
      });
    }
  });

  it("the marker header is the server's own: a client's is removed, so a GET stays a GET and a PATCH a PATCH", async () => {
    const { send, seen } = await serve(true);
    const res = await send("GET", "/api/v1/host", { [ORIGINAL_METHOD_HEADER]: "TRACE" });
    expect(res.status).toBe(200);
    expect(JSON.parse((await send("PATCH", "/api/v1/host", { [ORIGINAL_METHOD_HEADER]: "GET" })).body).message).toMatch(/^PATCH /);
    await send("TRACE", "/api/v1/host");
    expect(seen).toEqual([{ method: "GET" }, { method: "PATCH" }, { method: "PATCH", marker: "TRACE" }]);
  });
});
