import { generateToken, hashToken } from "@scalelab/db/tokens";
import { isTokenText } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { safeNext } from "~/lib/login";
import { authenticate, cookieValue, SESSION_COOKIE } from "./auth";
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
    const r = await authenticate(req({ authorization: "Bearer nope" }), { required: false }, async () => (looked++, info));
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(looked).toBe(0);
  });

  it("takes the bearer token over the cookie", async () => {
    const r = await authenticate(req({ authorization: `Bearer ${known}`, cookie: `${SESSION_COOKIE}=junk` }), { required: true }, verify);
    expect(r).toMatchObject({ ok: true, via: "bearer" });
  });

  it("refuses a cookie's mutation from another site but not a same-origin one", async () => {
    const cookie = `a=b; ${SESSION_COOKIE}=${known}`;
    expect(await authenticate(req({ cookie, "sec-fetch-site": "cross-site" }, "POST"), { required: true }, verify)).toMatchObject({
      status: 403,
    });
    expect(await authenticate(req({ cookie, "sec-fetch-site": "same-origin" }, "POST"), { required: true }, verify)).toMatchObject({
      ok: true,
      via: "cookie",
    });
    expect(await authenticate(req({ cookie, "sec-fetch-site": "cross-site" }), { required: true }, verify)).toMatchObject({ ok: true });
  });
});

describe("the session cookie and the login redirect", () => {
  it("reads one cookie among others", () => {
    expect(cookieValue("a=1; scalelab_session=slb_x; b=2", SESSION_COOKIE)).toBe("slb_x");
    expect(cookieValue("xscalelab_session=1", SESSION_COOKIE)).toBeNull();
    expect(cookieValue(undefined, SESSION_COOKIE)).toBeNull();
  });

  it("is HttpOnly and SameSite=Strict, Secure over https, and removed with Max-Age=0", () => {
    expect(sessionCookie("slb_x", false)).toBe("scalelab_session=slb_x; Max-Age=2592000; Path=/; HttpOnly; SameSite=Strict");
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
