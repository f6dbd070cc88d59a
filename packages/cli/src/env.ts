import path from "node:path";
import { z } from "zod";

export const DEFAULT_URL = "http://127.0.0.1:3000";

const ZEnv = z.object({
  /** The lab's address; `--url` wins over it. */
  SCALELAB_URL: z.string().optional(),
  /** An API token, sent as `Authorization: Bearer …` (the lab's tokens: issue 17). */
  SCALELAB_TOKEN: z.string().optional(),
  /** Set by pnpm/npm to the directory the command was typed in; read only through the root's `pnpm scalelab` script. */
  INIT_CWD: z.string().optional(),
  npm_lifecycle_event: z.string().optional(),
  /** Where the config file is looked for: $XDG_CONFIG_HOME/scalelab/config.json, else ~/.config/scalelab/config.json. */
  XDG_CONFIG_HOME: z.string().optional(),
  HOME: z.string().optional(),
});
export type CliEnv = {
  url: string | undefined;
  token: string | undefined;
  /** Where relative paths (the definition file, -o) are read from. */
  cwd: string;
  /** The config file (`{ "url": …, "token": … }`), read when it exists; SCALELAB_URL and SCALELAB_TOKEN win over it. */
  configFile?: string;
};

/**
 * The only reader of process.env. `pnpm scalelab …` runs the root's script in the repository's
 * root whatever directory it was typed in; pnpm says which in INIT_CWD, and file arguments are
 * relative to that directory, as the user typed them.
 */
export function readEnv(): CliEnv {
  const env = ZEnv.parse({
    SCALELAB_URL: process.env.SCALELAB_URL || undefined,
    SCALELAB_TOKEN: process.env.SCALELAB_TOKEN || undefined,
    INIT_CWD: process.env.INIT_CWD || undefined,
    npm_lifecycle_event: process.env.npm_lifecycle_event || undefined,
    XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME || undefined,
    HOME: process.env.HOME || undefined,
  });
  const viaRootScript = env.npm_lifecycle_event === "scalelab" && env.INIT_CWD !== undefined;
  const configDir = env.XDG_CONFIG_HOME ?? (env.HOME !== undefined ? path.join(env.HOME, ".config") : undefined);
  return {
    url: env.SCALELAB_URL,
    token: env.SCALELAB_TOKEN,
    cwd: viaRootScript ? env.INIT_CWD! : process.cwd(),
    ...(configDir !== undefined && { configFile: path.join(configDir, "scalelab", "config.json") }),
  };
}

/** The integration test's lab (scripts/test.sh's cli_check sets it), required: the test fails without it. */
export function integrationWebUrl(): string {
  const url = process.env.SCALELAB_WEB_URL;
  if (!url)
    throw new Error("SCALELAB_WEB_URL is not set: the CLI's integration test needs a running web and worker (e.g. http://127.0.0.1:3214)");
  return url;
}

/** The environment of a CLI started by the integration test: this one, with the lab's address and without pnpm's. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.npm_lifecycle_event;
  delete env.INIT_CWD;
  delete env.SCALELAB_TOKEN;
  // No config file of the user running the tests: only what the test gives.
  env.XDG_CONFIG_HOME = "/nonexistent/scalelab-test-config";
  return { ...env, ...extra };
}
