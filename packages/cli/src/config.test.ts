import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommand } from "./args";
import { apiError } from "./client";
import { withConfig } from "./config";
import { EXIT } from "./errors";
import { tokenRows } from "./format";

const TOKEN = `slb_${"a".repeat(43)}`;

function configFile(content: string, mode = 0o600): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "scalelab-config-")), "config.json");
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}

describe("the config file", () => {
  const base = { url: undefined, token: undefined, cwd: "/" };

  it("gives the url and token when the environment does not, and the environment wins", () => {
    const file = configFile(JSON.stringify({ url: "http://lab:3000", token: TOKEN }));
    const warnings: string[] = [];
    expect(withConfig({ ...base, configFile: file }, undefined, (w) => warnings.push(w))).toMatchObject({
      url: "http://lab:3000",
      token: TOKEN,
    });
    expect(withConfig({ ...base, token: "from-env", configFile: file }, undefined, (w) => warnings.push(w))).toMatchObject({
      url: "http://lab:3000",
      token: "from-env",
    });
    expect(warnings).toEqual([]);
  });

  it("warns when others may read the token", () => {
    const file = configFile(JSON.stringify({ url: "http://lab:3000", token: TOKEN }), 0o644);
    const warnings: string[] = [];
    expect(withConfig({ ...base, configFile: file }, undefined, (w) => warnings.push(w)).token).toBe(TOKEN);
    expect(warnings.join("")).toMatch(/other users may read it: chmod 600/);
  });

  it("sends the file's token only to the file's url", () => {
    const file = configFile(JSON.stringify({ url: "http://lab:3000/", token: TOKEN }));
    const quiet = () => {};
    // --url or SCALELAB_URL naming another lab: no token from the file.
    expect(withConfig({ ...base, configFile: file }, "http://evil.test:3000", quiet).token).toBeUndefined();
    expect(withConfig({ ...base, url: "http://127.0.0.1:3000", configFile: file }, undefined, quiet).token).toBeUndefined();
    expect(withConfig({ ...base, configFile: file }, "http://lab:3000.evil.test", quiet).token).toBeUndefined();
    expect(withConfig({ ...base, configFile: file }, "https://lab:3000", quiet).token).toBeUndefined();
    // The file's own lab, however written.
    expect(withConfig({ ...base, configFile: file }, "http://LAB:3000", quiet).token).toBe(TOKEN);
    expect(withConfig({ ...base, url: "http://lab:3000", configFile: file }, undefined, quiet).token).toBe(TOKEN);
    expect(withConfig({ ...base, configFile: file }, undefined, quiet)).toMatchObject({ url: "http://lab:3000/", token: TOKEN });
    // The environment's token goes wherever the environment says.
    expect(withConfig({ ...base, token: "from-env", configFile: file }, "http://other:3000", quiet).token).toBe("from-env");
  });

  it("gives no token from a file without a url, and says why", () => {
    const file = configFile(JSON.stringify({ token: TOKEN }));
    const warnings: string[] = [];
    expect(withConfig({ ...base, configFile: file }, undefined, (w) => warnings.push(w)).token).toBeUndefined();
    expect(warnings.join("")).toMatch(/has a token but no url: its token is sent only to its url/);
    const badUrl = configFile(JSON.stringify({ url: "ftp://lab", token: TOKEN }));
    expect(() => withConfig({ ...base, configFile: badUrl }, undefined, () => {})).toThrow(
      /url ftp:\/\/lab must be an http:\/\/ or https:\/\/ URL/,
    );
  });

  it("is optional, and refuses a file that is not the config's JSON, naming it", () => {
    expect(withConfig({ ...base, configFile: "/nonexistent/scalelab/config.json" }, undefined, () => {})).toMatchObject({
      token: undefined,
    });
    const bad = configFile("{ nope");
    expect(() => withConfig({ ...base, configFile: bad }, undefined, () => {})).toThrow(new RegExp(`${bad} is not JSON`));
    const extra = configFile(JSON.stringify({ tokn: TOKEN }));
    expect(() => withConfig({ ...base, configFile: extra }, undefined, () => {})).toThrow(/allowed: \{ "url", "token" \}/);
  });
});

describe("token commands", () => {
  it("parses create, list and revoke", () => {
    expect(parseCommand(["token", "create", "ci"])).toMatchObject({ name: "token-create", tokenName: "ci" });
    expect(parseCommand(["token", "list", "--json"])).toMatchObject({ name: "token-list", json: true });
    expect(parseCommand(["token", "revoke", "abc"])).toMatchObject({ name: "token-revoke", id: "abc" });
    expect(() => parseCommand(["token", "create"])).toThrow(/missing the token's name/);
    expect(() => parseCommand(["token", "delete", "x"])).toThrow(/unknown: token delete; use create, list or revoke/);
  });

  it("turns a 401 into exit 3 with how to give a token", () => {
    const err = apiError(401, { error: "unauthorized", message: "This lab needs an API token" });
    expect(err.code).toBe(EXIT.usage);
    expect(err.message).toMatch(/needs a valid API token/);
    expect(err.message).toMatch(/SCALELAB_TOKEN/);
    expect(err.message).toMatch(/config\.json/);
  });

  it("lists tokens by their first characters, never more", () => {
    const rows = tokenRows([
      { id: "t1", name: "ci", prefix: "slb_abcdef", createdAt: "2026-11-26T07:00:00.000Z", lastUsedAt: null, revokedAt: null },
      {
        id: "t2",
        name: "old",
        prefix: "slb_zzzzzz",
        createdAt: "2026-11-25T07:00:00.000Z",
        lastUsedAt: "2026-11-25T08:00:00.000Z",
        revokedAt: "2026-11-26T06:00:00.000Z",
      },
    ]);
    expect(rows[0]).toMatch(/^ID\s+NAME\s+TOKEN/);
    expect(rows[1]).toMatch(/t1\s+ci\s+slb_abcdef…\s+2026-11-26 07:00\s+never\s+active/);
    expect(rows[2]).toMatch(/revoked 2026-11-26 06:00/);
    expect(tokenRows([])).toEqual(["no tokens yet: scalelab token create <name>"]);
  });
});
