import { describe, expect, it } from "vitest";
import { generatePassword, generateSecrets, parseSecrets, postgresUrl, redisUrl } from "./secrets";

describe("generated passwords", () => {
  it("are 32 URL-safe characters, different every time", () => {
    const many = Array.from({ length: 200 }, generatePassword);
    for (const p of many) expect(p).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(many).size).toBe(many.length);
    // URL-safe: escaping changes nothing.
    for (const p of many) expect(encodeURIComponent(p)).toBe(p);
  });

  it("make three different secrets that parse back", () => {
    const s = generateSecrets();
    expect(new Set(Object.values(s)).size).toBe(3);
    expect(parseSecrets(JSON.stringify(s), "f")).toEqual(s);
  });
});

describe("parseSecrets", () => {
  it("names the file and the field, never the text", () => {
    const s = generateSecrets();
    expect(() => parseSecrets(JSON.stringify({ ...s, redisPassword: "short" }), "/x/secrets.json")).toThrow(
      /\/x\/secrets\.json: .*32–128 characters[\s\S]*redisPassword/,
    );
    expect(() => parseSecrets(JSON.stringify({ ...s, extra: 1 }), "f")).toThrow(/extra/);
    const broken = `{"postgresAdminPassword": "${s.postgresAdminPassword}"`;
    let message = "";
    try {
      parseSecrets(broken, "f");
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe("f: not JSON");
  });
});

describe("URLs", () => {
  it("carry the password escaped, so any password survives a round trip through URL parsing", () => {
    const password = "p@ss:w/o rd?#%&'\"";
    const url = postgresUrl({ user: "scalelab", password, host: "127.0.0.1", port: 55432, database: "scalelab_x" });
    expect(url).toBe("postgresql://scalelab:p%40ss%3Aw%2Fo%20rd%3F%23%25%26'%22@127.0.0.1:55432/scalelab_x");
    const parsed = new URL(url);
    expect(decodeURIComponent(parsed.password)).toBe(password);
    expect(parsed.username).toBe("scalelab");
    expect(parsed.port).toBe("55432");
    expect(parsed.pathname).toBe("/scalelab_x");

    const r = redisUrl({ password, host: "127.0.0.1", port: 56379, db: 7 });
    expect(r.startsWith("redis://:p%40ss")).toBe(true);
    const rp = new URL(r);
    expect(rp.username).toBe("");
    expect(decodeURIComponent(rp.password)).toBe(password);
    expect(rp.pathname).toBe("/7");
  });

  it("keep a generated password as it is", () => {
    const password = generatePassword();
    expect(redisUrl({ password, host: "127.0.0.1", port: 56379, db: 0 })).toBe(`redis://:${password}@127.0.0.1:56379/0`);
  });

  it("refuse a Redis database outside 0–15", () => {
    expect(() => redisUrl({ password: "x", host: "h", port: 1, db: 16 })).toThrow("redis-db must be an integer 0–15, got 16");
    expect(() => redisUrl({ password: "x", host: "h", port: 1, db: 1.5 })).toThrow(/0–15/);
  });
});
