import { readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { DEFAULT_URL, type CliEnv } from "./env";
import { UsageError } from "./errors";

const ZConfig = z.strictObject({
  url: z.string({ error: "url must be a string (e.g. http://127.0.0.1:3000)" }).optional(),
  token: z.string({ error: "token must be a string (slb_…)" }).optional(),
});

/** A lab's address as compared: origin and path without trailing slashes; null when it is not an http(s) URL. */
export function normalizedLabUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * The lab's address and token: SCALELAB_URL / SCALELAB_TOKEN, else the config file's (env.configFile,
 * `{ "url": …, "token": … }`), with a warning when the file may be read by other users (it holds a
 * token). The file's token goes only to the file's url: it is left out when the lab in use (`--url`,
 * else SCALELAB_URL, else the file's url) is another one, and a file with a token but no url gives
 * no token (with a warning). A missing file is no error; a file that is not that JSON is (exit 3,
 * naming it).
 */
export function withConfig(env: CliEnv, flagUrl: string | undefined, warn: (text: string) => void): CliEnv {
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
  const file = parsed.data;
  const fileUrl = file.url === undefined ? undefined : normalizedLabUrl(file.url);
  if (fileUrl === null) {
    throw new UsageError(`${env.configFile}: url ${file.url} must be an http:// or https:// URL (e.g. ${DEFAULT_URL})`);
  }
  if (file.token !== undefined && env.token === undefined && (mode & 0o077) !== 0) {
    warn(`scalelab: warning: ${env.configFile} holds a token and other users may read it: chmod 600 ${env.configFile}\n`);
  }
  if (file.token !== undefined && env.token === undefined && fileUrl === undefined) {
    warn(`scalelab: warning: ${env.configFile} has a token but no url: its token is sent only to its url, so add "url"\n`);
  }
  const inUse = normalizedLabUrl(flagUrl ?? env.url ?? file.url ?? DEFAULT_URL);
  const token = file.token !== undefined && fileUrl !== undefined && inUse === fileUrl ? file.token : undefined;
  return { ...env, url: env.url ?? file.url, token: env.token ?? token };
}
