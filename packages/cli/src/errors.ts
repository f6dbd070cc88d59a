/** The CLI's exit codes (README "Scripted use: the CLI", `scalelab --help`). */
export const EXIT = {
  /** Done; every threshold passed, or there were none. */
  passed: 0,
  /** A threshold or a regression check failed. */
  thresholdFailed: 1,
  /** The run or experiment failed, was interrupted or was cancelled. */
  failed: 2,
  /** A usage error, the lab unreachable, or a request the lab refused. */
  usage: 3,
  /** Ctrl-C while waiting: the run goes on (as shells report SIGINT, 128 + 2). */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure that ends the command with its exit code and its message on stderr. */
export class CliError extends Error {
  override readonly name: string = "CliError";
  constructor(
    message: string,
    readonly code: ExitCode = EXIT.usage,
  ) {
    super(message);
  }
}

/** Bad arguments or a bad definition file: exit 3, with a pointer to the help. */
export class UsageError extends CliError {
  override readonly name: string = "UsageError";
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

/** An error answer of the lab: its status, its machine-readable `error`, and per-field issues for invalid input. */
export class ApiError extends CliError {
  override readonly name: string = "ApiError";
  constructor(
    message: string,
    readonly status: number,
    readonly error: string,
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message, EXIT.usage);
  }
}
