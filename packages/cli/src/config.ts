import { readFileSync, statSync } from "node:fs";
import { z } from "zod";
import type { CliEnv } from "./env";
import { UsageError } from "./errors";

const ZConfig = z.strictObject({
  url: z.string({ error: "url must be a string (e.g. http://127.0.0.1:3000)" }).optional(),
  token: z.string({ error: "token must be a string (slb_…)" }).optional(),
});

/**
 * The lab's address and token: SCALELAB_URL / SCALELAB_TOKEN, else the config file's (env.configFile,
 * `{ "url": …, "token": … }`), with a warning when the file may be read by other users (it holds a
 * token). A missing file is no error; a file that is not that JSON is (exit 3, naming it).
 */
export function withConfig(env: CliEnv, warn: (text: string) => void): CliEnv {
  if (!env.configFile || (env.url !== undefined && env.token !== undefined)) return env;
  let text: string;
  let mode: number;
  try {
    mode = statSync(env.configFile).mode;
    text = readFileSync(env.configFile, "utf8");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return env;
    throw new UsageError(`cannot read ${env.configFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${env.configFile} is not JSON: write { "url": "http://…", "token": "slb_…" }`);
  }
  const parsed = ZConfig.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(`${env.configFile}: ${parsed.error.issues.map((i) => i.message).join("; ")} (allowed: { "url", "token" })`);
  }
  if (parsed.data.token !== undefined && env.token === undefined && (mode & 0o077) !== 0) {
    warn(`scalelab: warning: ${env.configFile} holds a token and other users may read it: chmod 600 ${env.configFile}\n`);
  }
  return { ...env, url: env.url ?? parsed.data.url, token: env.token ?? parsed.data.token };
}
