import { describe, expect, it } from "vitest";
import { bearerOf, isLoopbackAddress, isTokenText, requestNeedsToken, tokenDisplayPrefix, tokenRequired, ZTokenName } from "./tokens";

const TOKEN = `slb_${"A".repeat(20)}-_${"z9".repeat(10)}x`;

describe("tokens", () => {
  it("knows a token's shape and shows only its start", () => {
    expect(TOKEN).toHaveLength(47);
    expect(isTokenText(TOKEN)).toBe(true);
    expect(isTokenText(TOKEN.slice(0, -1))).toBe(false);
    expect(isTokenText(`ghp_${TOKEN.slice(4)}`)).toBe(false);
    expect(isTokenText(`${TOKEN}=`)).toBe(false);
    expect(tokenDisplayPrefix(TOKEN)).toBe("slb_AAAAAA");
  });

  it("reads a bearer credential, any case of the scheme", () => {
    expect(bearerOf(null)).toEqual({ kind: "none" });
    expect(bearerOf(" ")).toEqual({ kind: "none" });
    expect(bearerOf(`Bearer ${TOKEN}`)).toEqual({ kind: "bearer", token: TOKEN });
    expect(bearerOf(`bearer  ${TOKEN} `)).toEqual({ kind: "bearer", token: TOKEN });
    expect(bearerOf("Basic dXNlcjpwYXNz")).toEqual({ kind: "malformed" });
    expect(bearerOf("Bearer")).toEqual({ kind: "malformed" });
    expect(bearerOf("Bearer a b")).toEqual({ kind: "malformed" });
  });

  it("tells loopback addresses from the others", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1", "LOCALHOST"]) {
      expect(isLoopbackAddress(h), h).toBe(true);
    }
    for (const h of ["0.0.0.0", "::", "192.168.1.4", "128.0.0.1", "127.0.0.256", "lab.example.org", "127.0.0.1.nip.io", ""]) {
      expect(isLoopbackAddress(h), h).toBe(false);
    }
  });

  it("requires tokens off loopback, when unknown, and when forced", () => {
    expect(tokenRequired("127.0.0.1", "auto")).toBe(false);
    expect(tokenRequired("0.0.0.0", "auto")).toBe(true);
    expect(tokenRequired(undefined, "auto")).toBe(true);
    expect(tokenRequired("127.0.0.1", "required")).toBe(true);
  });

  it("requires tokens on loopback when the allowed hosts name another host (a reverse proxy in front)", () => {
    expect(tokenRequired("127.0.0.1", "auto", ["lab.example.org"])).toBe(true);
    expect(tokenRequired("127.0.0.1", "auto", ["localhost", "127.0.0.2", "::1"])).toBe(false);
    expect(tokenRequired("127.0.0.1", "auto", [])).toBe(false);
  });

  it("requires a token for a request addressed to a host that is not loopback, even on a loopback lab", () => {
    expect(requestNeedsToken(false, "127.0.0.1")).toBe(false);
    expect(requestNeedsToken(false, "localhost", ["127.0.0.1"])).toBe(false);
    expect(requestNeedsToken(false, "::1")).toBe(false);
    expect(requestNeedsToken(false, "lab.example.org")).toBe(true);
    expect(requestNeedsToken(false, "192.168.1.4")).toBe(true);
    expect(requestNeedsToken(false, "127.0.0.1", ["lab.example.org"])).toBe(true);
    expect(requestNeedsToken(false, undefined)).toBe(true);
    expect(requestNeedsToken(true, "127.0.0.1")).toBe(true);
  });

  it("names the field and the range for a bad name", () => {
    expect(ZTokenName.parse("ci runner ®")).toBe("ci runner ®");
    expect(ZTokenName.safeParse("   ").error?.issues[0]?.message).toMatch(/not be only spaces/);
    expect(ZTokenName.safeParse("").error?.issues[0]?.message).toMatch(/name must be 1–80 characters/);
    expect(ZTokenName.safeParse("x".repeat(81)).error?.issues[0]?.message).toMatch(/at most 80/);
    expect(ZTokenName.safeParse("a\nb").error?.issues[0]?.message).toMatch(/control characters/);
    expect(ZTokenName.safeParse(3).error?.issues[0]?.message).toMatch(/name must be a string/);
  });
});
