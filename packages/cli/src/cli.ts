import { parseCommand, USAGE, type Command } from "./args";
import { connect, labUrl } from "./client";
import type { Ctx } from "./commands/context";
import { exportFile } from "./commands/export";
import { pushImage } from "./commands/images";
import { cancel, compare, listPresets, status } from "./commands/inspect";
import { baseline, history } from "./commands/baselines";
import { runPreset, submitExperiment, submitRun } from "./commands/submit";
import { withConfig } from "./config";
import { createToken, listTokens, revokeToken } from "./commands/tokens";
import { listEngines } from "./commands/engines";
import { DEFAULT_URL, type CliEnv } from "./env";
import { CliError, EXIT, UsageError, type ExitCode } from "./errors";

export const HELP = `scalelab: run the lab's scaling experiments from a script or a CI job

Usage:
  ${USAGE.run}
  ${USAGE.experiment}
  scalelab preset list [--json]
  scalelab preset run <name> [--set path=value …] [--repetitions <n>] [--wait] [--json]
  ${USAGE.compare}
  ${USAGE.export}
  ${USAGE.images}
  ${USAGE.status}
  ${USAGE.engines}
  ${USAGE.cancel}
  ${USAGE.baseline}
  ${USAGE.history}
  scalelab token create <name> | token list | token revoke <id>

Options:
  --set path=value     change the file's definition: a field's path (topology.service.replicas, faults.0.at),
                       a JSON value (3, true, [1,2], {"a":1}) or else text (round_robin); repeatable
  --threshold 'p95<250'  fail the run (exit 1) unless it holds: rps, p50 p90 p95 p99 max (ms), errorRate,
                       checks (0–1); < <= > >=; repeatable, added to the file's thresholds
  --name <name>        the run's or experiment's name
  --wait               wait for the end: progress on stderr, the outcome as the exit code;
                       Ctrl-C stops waiting (the run goes on: scalelab cancel <id> stops it)
  --mark-baseline      wait, and once it passed (thresholds and regression check), mark it as the baseline of its
                       name: later runs or experiments of that name are checked against it
  --kind run|experiment  history: stand-alone runs (the default) or experiments of the name
  --json               stdout is JSON only: the result (with --wait, the finished run or experiment)
  --url <url>          the lab (default: SCALELAB_URL, else ${DEFAULT_URL})

Environment:
  SCALELAB_URL         the lab's address
  SCALELAB_TOKEN       an API token, sent as Authorization: Bearer <token> (needed when the lab
                       listens off loopback; scalelab token create <name> prints one)
  Both may also be in $XDG_CONFIG_HOME/scalelab/config.json (else ~/.config/scalelab/config.json):
  { "url": "http://…", "token": "slb_…" } (chmod 600); the environment wins over the file, and the
  file's token is sent only to the file's url (not to another --url or SCALELAB_URL)

Exit codes:
  0  done: passed (every threshold passed, or there were none); without --wait: queued
  1  a threshold or the regression check failed (worse than the baseline of its name: req/s lower or p95
     higher by more than regression.worseBy %, 10 by default, at p < regression.p; the table printed)
  2  the run or experiment failed, was interrupted or cancelled; an image build failed
  3  usage error, the lab unreachable, or a request the lab refused (its reasons printed)
  130  Ctrl-C while waiting: the run or experiment goes on
`;

export type CliIo = {
  env: CliEnv;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal: one updating progress line rather than a line per step. */
  tty: boolean;
  signal: AbortSignal;
  now?: () => number;
  pollMs?: number;
};

function dispatch(ctx: Ctx, cmd: Exclude<Command, { name: "help" }>): Promise<ExitCode> {
  switch (cmd.name) {
    case "run":
      return submitRun(ctx, cmd);
    case "experiment":
      return submitExperiment(ctx, cmd);
    case "preset-run":
      return runPreset(ctx, cmd);
    case "preset-list":
      return listPresets(ctx);
    case "compare":
      return compare(ctx, cmd);
    case "export":
      return exportFile(ctx, cmd);
    case "images-push":
      return pushImage(ctx, cmd);
    case "status":
      return status(ctx);
    case "cancel":
      return cancel(ctx, cmd);
    case "baseline":
      return baseline(ctx, cmd);
    case "history":
      return history(ctx, cmd);
    case "token-create":
      return createToken(ctx, cmd);
    case "token-list":
      return listTokens(ctx);
    case "engines":
      return listEngines(ctx);
    case "token-revoke":
      return revokeToken(ctx, cmd);
  }
}

/** Runs one command line; returns its exit code. Errors are printed on stderr, never thrown. */
export async function cli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let json = argv.includes("--json");
  try {
    const cmd = parseCommand(argv);
    json = cmd.json;
    if (cmd.name === "help") {
      io.out(HELP);
      return EXIT.passed;
    }
    const env = withConfig(io.env, cmd.url, io.err);
    const lab = connect(labUrl(cmd.url, env), env.token);
    const ctx: Ctx = {
      lab,
      env,
      json,
      out: io.out,
      err: io.err,
      signal: io.signal,
      progress: { mode: json ? "quiet" : io.tty ? "tty" : "lines", write: io.err, now: io.now ?? Date.now, pollMs: io.pollMs ?? 1000 },
    };
    return await dispatch(ctx, cmd);
  } catch (err) {
    if (io.signal.aborted) {
      io.err("\ninterrupted\n");
      return EXIT.interrupted;
    }
    if (err instanceof CliError) {
      io.err(`scalelab: ${err.message}\n${err instanceof UsageError && !/usage:|--help/.test(err.message) ? "(scalelab --help)\n" : ""}`);
      if (json) io.out(`${JSON.stringify({ error: err.message, exitCode: err.code }, null, 2)}\n`);
      return err.code;
    }
    io.err(`scalelab: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.usage;
  }
}
