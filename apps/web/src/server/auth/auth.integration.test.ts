import { createHash, randomUUID } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyApiToken } from "@scalelab/db/tokens";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "~/env";
import { appRouter } from "../routers/_app";
import type { Deps } from "../runtime";
import { createRestHandler } from "../rest/handler";
import { JSON_TYPE, post, runBody } from "../testing";
import { openServiceDeps } from "../testing-services";
import { createToken, revokeToken } from "../tokens/service";
import { createTrpcHandler } from "../trpc-http";
import { authenticate, authPolicyOf, SESSION_COOKIE, type AuthPolicy } from "./auth";
import { guardPages } from "./pages";
import { createSessionHandler } from "./session";

// Real Postgres (and Redis, for the handlers' deps). The web "listens" on 0.0.0.0: the policy is
// the one its environment gives (SCALELAB_LISTEN_HOST=0.0.0.0); the page guard sits on a real HTTP
// server bound to 0.0.0.0, called on 127.0.0.1 only.
const ORIGIN = "http://lab.test";
const API = `${ORIGIN}/api/v1`;
const TRPC = `${ORIGIN}/api/trpc`;
const prefix = `auth-integration ${randomUUID().slice(0, 8)}`;
const offLoopback = authPolicyOf(
  parseEnv({ DATABASE_URL: "postgresql://x@h/db", REDIS_URL: "redis://h:6379", SCALELAB_LISTEN_HOST: "0.0.0.0" }),
);
const onLoopback = authPolicyOf(
  parseEnv({ DATABASE_URL: "postgresql://x@h/db", REDIS_URL: "redis://h:6379", SCALELAB_LISTEN_HOST: "127.0.0.1" }),
);

let deps: Deps;
let close: () => Promise<void>;
let pages: Server;
let pagesUrl: string;

const handlers = (policy: AuthPolicy, streamRecheckMs?: number) => {
  const auth = (req: Request) => authenticate(req, policy, (t) => verifyApiToken(deps.db, t));
  return {
    rest: createRestHandler({ router: appRouter, createContext: () => ({ deps }), authenticate: auth }),
    trpc: createTrpcHandler({ router: appRouter, createContext: () => ({ deps }), authenticate: auth, streamRecheckMs }),
  };
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const getRest = (h: ReturnType<typeof handlers>, headers: Record<string, string> = {}) => h.rest(new Request(`${API}/tokens`, { headers }));
const getTrpc = (h: ReturnType<typeof handlers>, headers: Record<string, string> = {}) =>
  h.trpc(new Request(`${TRPC}/tokens.list?input=${encodeURIComponent("{}")}`, { headers }));
/** A GET with the Host header given (fetch sends the URL's). */
function rawGet(port: number, path: string, host: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { ...headers, host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    });
    req.on("error", reject);
    req.end();
  });
}
const getPage = (path: string, headers: Record<string, string> = {}) => fetch(`${pagesUrl}${path}`, { headers, redirect: "manual" });

beforeAll(async () => {
  ({ deps, close } = await openServiceDeps());
  pages = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("the page");
  });
  guardPages(pages, { policy: () => offLoopback, verify: (t) => verifyApiToken(deps.db, t) });
  await new Promise<void>((resolve) => pages.listen(0, "0.0.0.0", resolve));
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await deps.db.apiToken.deleteMany({ where: { name: { startsWith: prefix } } });
  await deps.db.run.deleteMany({ where: { name: { startsWith: prefix } } });
  await new Promise((resolve) => pages.close(resolve));
  await close();
});

describe("API tokens when the web listens off loopback", () => {
  it("is required there and optional on loopback", () => {
    expect(offLoopback.always).toBe(true);
    expect(onLoopback.always).toBe(false);
  });

  it("refuses a call without a token (401 on REST and tRPC, a redirect for pages), takes a token, refuses it once revoked", async () => {
    const h = handlers(offLoopback);

    const rest401 = await getRest(h);
    expect(rest401.status).toBe(401);
    expect(rest401.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await rest401.json()).toMatchObject({ error: "unauthorized", message: expect.stringMatching(/needs an API token/) });
    const trpc401 = await getTrpc(h);
    expect(trpc401.status).toBe(401);
    expect(await trpc401.json()).toMatchObject({ error: { data: { code: "UNAUTHORIZED" } } });
    // Also a path that does not exist: nothing is said about the API before the token.
    expect((await h.rest(new Request(`${API}/nothing-here`))).status).toBe(401);

    const page = await getPage("/runs/abc?x=1");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/login?next=${encodeURIComponent("/runs/abc?x=1")}`);
    expect((await getPage("/login")).status).toBe(200);
    expect((await getPage("/_next/static/chunks/app.js")).status).toBe(200);

    const { token, id } = await createToken(deps, { name: `${prefix} ci` });
    const row = await deps.db.apiToken.findUniqueOrThrow({ where: { id } });
    expect(row.hash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(token.slice(4));
    expect(row.prefix).toBe(token.slice(0, 10));

    const ok = await getRest(h, bearer(token));
    expect(ok.status).toBe(200);
    const listed = (await ok.json()) as { id: string; prefix: string }[];
    expect(listed.find((t) => t.id === id)).toMatchObject({ prefix: token.slice(0, 10) });
    expect(JSON.stringify(listed)).not.toContain(token);
    expect((await getTrpc(h, bearer(token))).status).toBe(200);
    expect((await getPage("/runs", { cookie: `${SESSION_COOKIE}=${token}` })).status).toBe(200);
    expect((await deps.db.apiToken.findUniqueOrThrow({ where: { id } })).lastUsedAt).not.toBeNull();

    await revokeToken(deps, id);
    const revoked = await getRest(h, bearer(token));
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toMatchObject({ error: "unauthorized", message: expect.stringMatching(/revoked/) });
    expect((await getTrpc(h, bearer(token))).status).toBe(401);
    expect((await getPage("/runs", { cookie: `${SESSION_COOKIE}=${token}` })).status).toBe(303);
  });

  it("refuses a malformed or unknown bearer token, and a cookie's cross-site mutation", async () => {
    const h = handlers(offLoopback);
    expect((await getRest(h, { authorization: "Basic dXNlcjpwYXNz" })).status).toBe(401);
    expect((await getRest(h, bearer(`slb_${"x".repeat(43)}`))).status).toBe(401);

    const { token } = await createToken(deps, { name: `${prefix} browser` });
    const cookie = `${SESSION_COOKIE}=${token}`;
    const create = (origin: string) =>
      h.rest(
        new Request(`${API}/tokens`, {
          method: "POST",
          headers: { cookie, origin, "content-type": "application/json" },
          body: JSON.stringify({ name: `${prefix} from cookie` }),
        }),
      );
    const crossSite = await create("http://evil.test");
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toMatchObject({ error: "forbidden" });
    expect(await deps.db.apiToken.count({ where: { name: `${prefix} from cookie` } })).toBe(0);
    expect((await create(ORIGIN)).status).toBe(201);
  });
});

describe("API tokens on loopback", () => {
  const lo = { host: "127.0.0.1:3125" };

  it("needs none, but checks one that is sent", async () => {
    const h = handlers(onLoopback);
    expect((await getRest(h, lo)).status).toBe(200);
    expect((await getTrpc(h, lo)).status).toBe(200);
    const { token, id } = await createToken(deps, { name: `${prefix} loopback` });
    expect((await getRest(h, { ...lo, ...bearer(token) })).status).toBe(200);
    await revokeToken(deps, id);
    expect((await getRest(h, { ...lo, ...bearer(token) })).status).toBe(401);
    expect((await getTrpc(h, { ...lo, ...bearer(token) })).status).toBe(401);
    // A stale session cookie is ignored on loopback rather than locking the dashboard.
    expect((await getRest(h, { ...lo, cookie: `${SESSION_COOKIE}=${token}` })).status).toBe(200);
  });

  it("needs one for a request addressed to another host: the lab behind a reverse proxy", async () => {
    const h = handlers(onLoopback);
    const proxied: Record<string, string>[] = [
      { host: "lab.example.org" },
      { host: "127.0.0.1:3125", "x-forwarded-host": "lab.example.org" },
    ];
    for (const headers of proxied) {
      const rest = await getRest(h, headers);
      expect(rest.status, JSON.stringify(headers)).toBe(401);
      expect(await rest.json()).toMatchObject({ error: "unauthorized", message: expect.stringMatching(/needs an API token/) });
      expect((await getTrpc(h, headers)).status, JSON.stringify(headers)).toBe(401);
    }
    const { token } = await createToken(deps, { name: `${prefix} proxied` });
    expect((await getRest(h, { host: "lab.example.org", ...bearer(token) })).status).toBe(200);

    // The pages too: a web on loopback, reached through a proxy under another name, sends a stranger to /login.
    const server = createServer((_req, res) => res.end("the page"));
    guardPages(server, { policy: () => onLoopback, verify: (t) => verifyApiToken(deps.db, t) });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      expect((await rawGet(port, "/runs", "127.0.0.1")).status).toBe(200);
      const proxied = await rawGet(port, "/runs", "lab.example.org");
      expect(proxied.status).toBe(303);
      expect(proxied.location).toBe("/login?next=%2Fruns");
      expect((await rawGet(port, "/runs", "lab.example.org", { cookie: `${SESSION_COOKIE}=${token}` })).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("needs one everywhere when SCALELAB_ALLOWED_HOSTS names another host, whatever the Host header says", async () => {
    const proxied = authPolicyOf(
      parseEnv({
        DATABASE_URL: "postgresql://x@h/db",
        REDIS_URL: "redis://h:6379",
        SCALELAB_LISTEN_HOST: "127.0.0.1",
        SCALELAB_ALLOWED_HOSTS: "lab.example.org",
      }),
    );
    expect(proxied.always).toBe(true);
    expect((await getRest(handlers(proxied), lo)).status).toBe(401);
  });
});

describe("a live stream (tRPC subscription, server-sent events)", () => {
  it("ends once the token it was opened with is revoked", async () => {
    const h = handlers(offLoopback, 200);
    const { token, id } = await createToken(deps, { name: `${prefix} live` });
    const created = await h.rest(post(`${API}/runs`, JSON.stringify(runBody(1, `${prefix} live`)), { ...JSON_TYPE, ...bearer(token) }));
    expect(created.status).toBe(201);
    const run = (await created.json()) as { id: string };
    const live = await h.trpc(
      new Request(`${TRPC}/runs.live?input=${encodeURIComponent(JSON.stringify({ id: run.id }))}`, { headers: bearer(token) }),
    );
    expect(live.status).toBe(200);
    expect(live.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = live.body!.getReader();
    const text: string[] = [];
    const ended = (async () => {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return "ended";
        text.push(new TextDecoder().decode(chunk.value));
      }
    })();
    const after = (ms: number) => new Promise<string>((resolve) => setTimeout(() => resolve("open"), ms));

    // Several checks pass while the token is valid: the stream stays open and carries the run.
    expect(await Promise.race([ended, after(1_000)])).toBe("open");
    expect(text.join("")).toContain(run.id);
    await revokeToken(deps, id);
    expect(await Promise.race([ended, after(3_000)])).toBe("ended");
  });
});

describe("last used", () => {
  it("is written at most once a minute", async () => {
    const { token, id } = await createToken(deps, { name: `${prefix} last used` });
    const t0 = new Date("2026-11-26T08:00:00.000Z");
    const at = async (ms: number) => {
      await verifyApiToken(deps.db, token, new Date(t0.getTime() + ms));
      return (await deps.db.apiToken.findUniqueOrThrow({ where: { id } })).lastUsedAt?.getTime();
    };
    expect(await at(0)).toBe(t0.getTime());
    expect(await at(30_000)).toBe(t0.getTime());
    expect(await at(59_999)).toBe(t0.getTime());
    expect(await at(60_001)).toBe(t0.getTime() + 60_001);
  });
});

describe("/api/session: the dashboard's login", () => {
  it("sets an HttpOnly, SameSite=Lax cookie for a valid token, and refuses a revoked one or another site", async () => {
    const session = createSessionHandler((t) => verifyApiToken(deps.db, t));
    const { token, id } = await createToken(deps, { name: `${prefix} login` });
    const login = (body: unknown, headers: Record<string, string> = {}) =>
      session(
        new Request(`${ORIGIN}/api/session`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: ORIGIN, ...headers },
          body: JSON.stringify(body),
        }),
      );
    const ok = await login({ token });
    expect(ok.status).toBe(200);
    const cookie = ok.headers.get("set-cookie")!;
    expect(cookie).toContain(`${SESSION_COOKIE}=${token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect((await login({ token }, { "x-forwarded-proto": "https" })).headers.get("set-cookie")).toMatch(/; Secure/);
    expect((await login({ token }, { origin: "http://evil.test" })).status).toBe(403);
    const bad = await login({ token: "nope" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ issues: [{ path: "token" }] });
    await revokeToken(deps, id);
    expect((await login({ token })).status).toBe(401);
    const out = await session(new Request(`${ORIGIN}/api/session`, { method: "DELETE", headers: { origin: ORIGIN } }));
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });
});
