import type { Lab } from "../client";
import type { CliEnv } from "../env";
import type { Progress } from "../wait";

/** What a command works with: the lab, where its output and messages go, and Ctrl-C. */
export type Ctx = {
  lab: Lab;
  env: CliEnv;
  json: boolean;
  /** stdout: the result (JSON with --json). */
  out: (text: string) => void;
  /** stderr: progress and messages. */
  err: (text: string) => void;
  progress: Progress;
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
};

export const printJson = (ctx: Ctx, value: unknown) => ctx.out(`${JSON.stringify(value, null, 2)}\n`);
