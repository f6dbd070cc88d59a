import type { Db } from "@scalelab/db";
import type { TRunCreate } from "@scalelab/scenarios/schemas";
import type { ensureLabImages } from "@scalelab/images";
import type Docker from "dockerode";
import type { Redis } from "ioredis";
import type { Logger } from "../log";
import type { Provisioner } from "../provisioner/types";
import type { RunReporter } from "./reporter";

export type { ImageProgress, LabImages } from "@scalelab/images";
/** `ensureLabImages` of @scalelab/images; tests pass a wrapper. */
export type PrepareImages = typeof ensureLabImages;

export type Timeouts = { healthyMs: number; warmupMs: number; k6ConnectMs: number; k6ExitMs: number };
export const DEFAULT_TIMEOUTS: Timeouts = { healthyMs: 60_000, warmupMs: 2_000, k6ConnectMs: 60_000, k6ExitMs: 30_000 };

export type PipelineDeps = {
  db: Db;
  /** Publishes live messages. */
  pub: Redis;
  /** In subscriber mode, for cancel messages. */
  sub: Redis;
  docker: Docker;
  provisioner: Provisioner;
  /** Labels the run's objects as this control plane's (see sweeper.ts). */
  instance: string;
  prepareImages: PrepareImages;
  log: Logger;
  timeouts: Timeouts;
};

export type RunContext = {
  runId: string;
  run: TRunCreate;
  deps: PipelineDeps;
  report: RunReporter;
  /** Aborted on cancel (reason: RunStopped "cancelled") or worker shutdown ("interrupted"). */
  signal: AbortSignal;
};

export class RunStopped extends Error {
  constructor(
    readonly status: "cancelled" | "interrupted",
    message: string,
  ) {
    super(message);
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A container that stopped, described with its exit code and the end of its output. */
export async function describeExit(deps: PipelineDeps, id: string, what: string, network: string): Promise<string> {
  const state = await deps.provisioner.inspect(id, network);
  const logs = await deps.provisioner.logs(id, 15).catch(() => "");
  const why = state.oomKilled ? " (killed: out of memory)" : state.error ? ` (${state.error})` : "";
  return `${what} exited with code ${state.exitCode}${why}${logs ? `; last output:\n${logs}` : ""}`;
}
