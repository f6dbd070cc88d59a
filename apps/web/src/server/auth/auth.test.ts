import { generateToken, hashToken } from "@scalelab/db/tokens";
import { isTokenText } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { safeNext } from "~/lib/login";
import { authenticate, authPolicyOf, cookieValue, SESSION_COOKIE, tokenNeeded } from "./auth";
import { isOpenPath, loginLocation } from "./pages";
import { sessionCookie } from "./session";

const info = { id: "t", name: "ci", prefix: "slb_aaaaaa", createdAt: new Date(), lastUsedAt: null, revokedAt: null };

describe("tokens as made and stored", () => {
  it("have the contract's shape, differ each time, and are stored as their SHA-256", () => {
    const [a, b] = [generateToken(), generateToken()];
    expect(isTokenText(a)).toBe(true);
    expect(a).not.toBe(b);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(a)).not.toContain(a.slice(4));
  });
});

describe("authenticate", () => {
  const known = generateToken();
  const verify = async (t: string) => (t === known ? info : null);
  const req = (headers: Record<string, string>, method = "GET") => ({
    headers: new Headers(headers),
    method,
    url: "http://lab.test/api/v1/runs",
  });

  it("does not look up what is not shaped like a token", async () => {
    let looked = 0;
    const r = await authenticate(req({ authorization: "Bearer nope" }), { always: false }, async () => (looked++, info));
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(looked).toBe(0);
  });

  it("takes the bearer token over the cookie", async () => {
    const r = await authenticate(req({ authorization: `Bearer ${known}`, cookie: `${SESSION_COOKIE}=junk` }), { always: true }, verify);
    expect(r).toMatchObject({ ok: true, via: "bearer" });
  });

  it("needs a token on a loopback lab for a request addressed to another host (a reverse proxy in front)", async () => {
    const loopback = { always: false };
    const at = (host: string, extra: Record<string, string> = {}) => ({
      headers: new Headers({ host, ...extra }),
      method: "GET",
      url: `http://${host}/api/v1/runs`,
    });
    expect(await authenticate(at("127.0.0.1:3125"), loopback, verify)).toMatchObject({ ok: true, via: null });
    expect(await authenticate(at("localhost:3125"), loopback, verify)).toMatchObject({ ok: true, via: null });
    expect(await authenticate(at("[::1]:3125"), loopback, verify)).toMatchObject({ ok: true, via: null });
    expect(await authenticate(at("lab.example.org"), loopback, verify)).toMatchObject({ ok: false, status: 401 });
    expect(await authenticate(at("192.168.1.4:3000"), loopback, verify)).toMatchObject({ ok: false, status: 401 });
    expect(await authenticate(at("127.0.0.1:3125", { "x-forwarded-host": "lab.example.org" }), loopback, verify)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(await authenticate(at("lab.example.org", { authorization: `Bearer ${known}` }), loopback, verify)).toMatchObject({ ok: true });
    // Without a Host header, the URL's host decides.
    expect(await authenticate(req({}), loopback, verify)).toMatchObject({ ok: false, status: 401 });
  });

  it("needs a token everywhere when the allowed hosts name a host that is not loopback", () => {
    const env = { SCALELAB_LISTEN_HOST: "127.0.0.1", SCALELAB_AUTH: "auto" as const };
    expect(authPolicyOf({ ...env, SCALELAB_ALLOWED_HOSTS: [] })).toEqual({ always: false });
    expect(authPolicyOf({ ...env, SCALELAB_ALLOWED_HOSTS: ["lab.example.org"] })).toEqual({ always: true });
    expect(tokenNeeded({ always: false }, "127.0.0.1:3000", null)).toBe(false);
    expect(tokenNeeded({ always: false }, "127.0.0.1:3000", ["127.0.0.1", "lab.example.org, 127.0.0.1"])).toBe(true);
  });

  it("refuses a cookie's mutation from another site but not a same-origin one", async () => {
    const cookie = `a=b; ${SESSION_COOKIE}=${known}`;
    expect(await authenticate(req({ cookie, "sec-fetch-site": "cross-site" }, "POST"), { always: true }, verify)).toMatchObject({
      status: 403,
    });
    expect(await authenticate(req({ cookie, "sec-fetch-site": "same-origin" }, "POST"), { always: true }, verify)).toMatchObject({
      ok: true,
      via: "cookie",
    });
    expect(await authenticate(req({ cookie, "sec-fetch-site": "cross-site" }), { always: true }, verify)).toMatchObject({ ok: true });
  });
});

describe("the session cookie and the login redirect", () => {
  it("reads one cookie among others", () => {
    expect(cookieValue("a=1; scalelab_session=slb_x; b=2", SESSION_COOKIE)).toBe("slb_x");
    expect(cookieValue("xscalelab_session=1", SESSION_COOKIE)).toBeNull();
    expect(cookieValue(undefined, SESSION_COOKIE)).toBeNull();
  });

  it("is HttpOnly and SameSite=Lax (a link from CI logs arrives logged in), Secure over https, and removed with Max-Age=0", () => {
    expect(sessionCookie("slb_x", false)).toBe("scalelab_session=slb_x; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax");
    expect(sessionCookie("slb_x", true)).toMatch(/; Secure$/);
    expect(sessionCookie(null, false)).toMatch(/^scalelab_session=; Max-Age=0;/);
  });

  it("leaves open only the login page, the API's routes and static files", () => {
    for (const p of ["/login", "/api/v1/runs", "/api/session", "/_next/static/x.js", "/icon.svg"]) expect(isOpenPath(p), p).toBe(true);
    for (const p of ["/", "/runs", "/tokens", "/login2", "/_next/data/x.json", "/reference"]) expect(isOpenPath(p), p).toBe(false);
  });

  it("returns only to a path of the lab", () => {
    expect(loginLocation("/runs?x=1")).toBe("/login?next=%2Fruns%3Fx%3D1");
    expect(loginLocation("/")).toBe("/login");
    expect(loginLocation("//evil.test/x")).toBe("/login");
    expect(safeNext("/runs/1")).toBe("/runs/1");
    for (const bad of ["//evil.test", "https://evil.test", "/\\evil.test", "", null]) expect(safeNext(bad)).toBe("/");
  });
});
