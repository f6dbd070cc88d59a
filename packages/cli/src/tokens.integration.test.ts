import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, integrationWebUrl } from "./env";
import { BIN, explain, runCommand, type Result } from "./testing";

/**
 * `scalelab token …`, the real CLI as a child process against a real web (SCALELAB_WEB_URL, on
 * loopback: tokens optional there, but a token sent is checked). No runs.
 */
const WEB = integrationWebUrl();
const TAG = randomUUID().slice(0, 8);
const TOKEN = /^slb_[A-Za-z0-9_-]{43}$/;

const scalelab = (args: string[], env: Record<string, string> = {}): Promise<Result> =>
  runCommand(process.execPath, [BIN, ...args], { env: childEnv({ SCALELAB_URL: WEB, ...env }) });

let configHome: string;

beforeAll(async () => {
  const res = await fetch(`${WEB}/api/v1/tokens`).catch((err: unknown) => {
    throw new Error(`the lab at SCALELAB_WEB_URL=${WEB} does not answer (${String(err)}): start a web first`);
  });
  if (!res.ok) throw new Error(`the lab at ${WEB} answered ${res.status} to GET /api/v1/tokens`);
  configHome = await mkdtemp(path.join(tmpdir(), "scalelab-cli-config-"));
});

afterAll(async () => {
  await rm(configHome, { recursive: true, force: true });
});

describe("scalelab token", () => {
  it("creates a token (printed alone, once), lists it by its first characters, revokes it; the lab then refuses it", async () => {
    const name = `cli ${TAG}`;
    const created = await scalelab(["token", "create", name]);
    expect(created.code, explain(created)).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(TOKEN);
    expect(created.stderr).toMatch(/will not show it again/);

    // The token from the environment works, and the list never holds a token.
    const listed = await scalelab(["token", "list", "--json"], { SCALELAB_TOKEN: token });
    expect(listed.code, explain(listed)).toBe(0);
    const rows = JSON.parse(listed.stdout) as { id: string; name: string; prefix: string; lastUsedAt: string | null }[];
    const row = rows.find((r) => r.name === name)!;
    expect(row).toMatchObject({ prefix: token.slice(0, 10) });
    expect(row.lastUsedAt).not.toBeNull();
    expect(listed.stdout).not.toContain(token);
    const table = await scalelab(["token", "list"]);
    expect(table.stdout).toMatch(new RegExp(`${row.id}\\s+${name}\\s+${token.slice(0, 10)}…`));

    const revoked = await scalelab(["token", "revoke", row.id]);
    expect(revoked.code, explain(revoked)).toBe(0);
    expect(revoked.stdout).toContain(`revoked token "${name}"`);

    const refused = await scalelab(["status"], { SCALELAB_TOKEN: token });
    expect(refused.code, explain(refused)).toBe(3);
    expect(refused.stderr).toMatch(/needs a valid API token/);
    expect(refused.stderr).toMatch(/SCALELAB_TOKEN/);
  });

  it("reads the token from the config file when the environment has none, the environment winning", async () => {
    const a = await scalelab(["token", "create", `cli config ${TAG}`, "--json"]);
    expect(a.code, explain(a)).toBe(0);
    const { token, id } = JSON.parse(a.stdout) as { token: string; id: string };
    await mkdir(path.join(configHome, "scalelab"), { recursive: true });
    const file = path.join(configHome, "scalelab", "config.json");
    await writeFile(file, JSON.stringify({ url: WEB, token }), { mode: 0o600 });
    const env = { XDG_CONFIG_HOME: configHome };

    expect((await scalelab(["token", "list"], env)).code).toBe(0);
    expect((await scalelab(["token", "revoke", id], env)).code).toBe(0);
    // Revoked: the file's token is sent (the lab refuses it) unless the environment gives another.
    const fromFile = await scalelab(["token", "list"], env);
    expect(fromFile.code, explain(fromFile)).toBe(3);
    expect(fromFile.stderr).toMatch(/needs a valid API token/);
    // The file's token goes only to the file's url: to another address (here the same lab as localhost) it is not sent.
    const other = WEB.replace("127.0.0.1", "localhost");
    expect(other).not.toBe(WEB);
    const elsewhere = await scalelab(["token", "list", "--url", other], env);
    expect(elsewhere.code, explain(elsewhere)).toBe(0);
    const b = await scalelab(["token", "create", `cli env ${TAG}`]);
    expect((await scalelab(["token", "list"], { ...env, SCALELAB_TOKEN: b.stdout.trim() })).code).toBe(0);
  });

  it("refuses a bad name naming the field and its range (exit 3)", async () => {
    const r = await scalelab(["token", "create", "x".repeat(81)]);
    expect(r.code, explain(r)).toBe(3);
    expect(r.stderr).toMatch(/name must be at most 80 characters/);
  });
});
