import type { Db } from "@scalelab/db";
import type { EnsureOptions } from "@scalelab/images";
import type { LabImage } from "@scalelab/scenarios/plan";
import type { TRunCreate } from "@scalelab/scenarios/contract";
import type Docker from "dockerode";
import type { Redis } from "ioredis";
import type { Logger } from "../log";
import type { Provisioner } from "../provisioner/types";
import type { RunReporter } from "./reporter";

export type { ImageProgress } from "@scalelab/images";

/** Builds or finds the named images; returns their tags. `ensureImages` of @scalelab/images; tests wrap it. */
export type PrepareImages = (docker: Docker, names: readonly LabImage[], opts: EnsureOptions) => Promise<Partial<Record<LabImage, string>>>;

export type Timeouts = {
  /** Every container of the topology ready (probes), from the start of the wait. */
  healthyMs: number;
  warmupMs: number;
  k6ConnectMs: number;
  k6ExitMs: number;
  /** One call to the Docker engine (create, start, inspect, logs, remove). */
  dockerCallMs: number;
  /** After the load, how long consumers may take to work off the broker's backlog while it is still measured. */
  drainMs: number;
};
export const DEFAULT_TIMEOUTS: Timeouts = {
  healthyMs: 90_000,
  warmupMs: 2_000,
  k6ConnectMs: 60_000,
  k6ExitMs: 30_000,
  dockerCallMs: 30_000,
  drainMs: 10_000,
};

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

/**
 * `promise`, or a rejection after `ms` or when `signal` aborts (with its reason), whichever comes
 * first. What the promise was doing goes on in the background; the run's teardown removes by label.
 */
export function deadline<T>(promise: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${Math.round(ms / 1000)} s`)), ms);
    if (signal) {
      onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  promise.catch(() => undefined);
  return Promise.race([promise, stop]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  });
}

/** A container that stopped, described with its exit code and the end of its output. */
export async function describeExit(deps: PipelineDeps, id: string, what: string, network: string): Promise<string> {
  const state = await deps.provisioner.inspect(id, network);
  const logs = await deps.provisioner.logs(id, 15).catch(() => "");
  const why = state.oomKilled ? " (killed: out of memory)" : state.error ? ` (${state.error})` : "";
  return `${what} exited with code ${state.exitCode}${why}${logs ? `; last output:\n${logs}` : ""}`;
}
