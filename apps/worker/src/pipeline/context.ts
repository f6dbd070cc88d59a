import { Db } from "@scalelab/db";
import { EnsureOptions } from "@scalelab/images";
import { LabImage } from "@scalelab/scenarios/plan";
import { TRunCreate } from "@scalelab/scenarios/contract";
import { ScriptFacts } from "@scalelab/scenarios/loadgen";
import Docker from "dockerode";
import { Redis } from "ioredis";
import { Logger } from "../log";
import { Provisioner } from "../provisioner/types";
import { RunReporter } from "./reporter";

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
  /** workload.script, once k6 checked it (./script-check.ts). */
  script?: ScriptFacts;
};

export { deadline, RunStopped, sleep } from "./timing";

/** A container that stopped, described with its exit code and the end of its output. */
export async function describeExit(deps: PipelineDeps, id: string, what: string, network: string): Promise<string> {
  const state = await deps.provisioner.inspect(id, network);
  const oom = state.oomKilled ? "OOM-killed: yes (out of memory)" : "OOM-killed: no";
  const why = state.error ? `, ${state.error}` : "";
  return `${what} exited with code ${state.exitCode} (${oom}${why})${(await lastOutput(deps, id)) || "; it wrote no output"}`;
}

/** `; last output:` and the container's last lines, or "" when it has none (or they cannot be read). */
export async function lastOutput(deps: PipelineDeps, id: string): Promise<string> {
  const logs = await deps.provisioner.logs(id, 15).catch(() => "");
  return logs ? `; last output:\n${logs}` : "";
}
