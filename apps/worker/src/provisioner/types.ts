import { PlannedContainer, PlannedFile } from "@scalelab/scenarios/plan";
import { TEngineNode, THostFacts } from "@scalelab/scenarios/contract";
import { DockerStatsReading } from "@scalelab/scenarios/analysis";

export type ContainerAction = "stop" | "start" | "kill" | "restart" | "pause" | "unpause";

/** Docker's own default grace period of `docker stop` and `docker restart`. */
export const STOP_GRACE_SECONDS = 10;

/** The one node of the local engine. */
export const LOCAL_NODE = "local";

/** `node`: the engine node it runs on, "local" on the local engine. */
export type StartedContainer = { id: string; name: string; role: string; node: string };

/** Where the worker opens a connection to reach a container's port. */
export type HostPort = { host: string; port: number };
/** `host:port` for a URL or a client: an IPv6 address in brackets. */
export const hostPort = (a: HostPort) => (a.host.includes(":") ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`);

export type ContainerState = {
  running: boolean;
  exitCode: number;
  oomKilled: boolean;
  /** Docker's own error for a container that could not start. */
  error: string;
  /** The container's address on the given network, "" when it has none. */
  ip: string;
};

/** One of the engine's events about a container (`start`, `die`, `kill`, …); `attributes` as the engine gives them (exitCode, signal, name, labels). */
export type ContainerEvent = {
  id: string;
  name: string;
  action: string;
  atMs: number;
  timeNano: bigint;
  attributes: Record<string, string>;
};

/**
 * What the pipeline needs from a container runtime. The Docker implementation runs a plan on
 * one engine; a Swarm or Kubernetes one would run the same plan elsewhere.
 */
export interface Provisioner {
  createNetwork(spec: { name: string; labels: Record<string, string> }): Promise<void>;
  /** Creates the container on the network, writes its files, then starts it. */
  startContainer(spec: PlannedContainer, network: string): Promise<StartedContainer>;
  putFiles(containerId: string, files: PlannedFile[]): Promise<void>;
  /**
   * Runs the container to its end without any network (NetworkMode none), then removes it: a
   * throwaway check. `exitCode` is undefined when it still ran after timeoutMs (it is removed all the same).
   */
  runIsolated(spec: PlannedContainer, timeoutMs: number): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }>;
  inspect(containerId: string, network: string): Promise<ContainerState>;
  /**
   * The address the worker dials for the container's `port`: on one engine the container's own
   * address on the run network (its holder's, for a container in a holder's namespace) and the port
   * itself; on a cluster, where the worker cannot reach a container's overlay address, its node's
   * address and the port published there. Every connection the worker opens to a container (probes,
   * figures, toxiproxy's API, k6's dashboard, the warm-up) goes through it.
   */
  dialAddress(containerId: string, network: string, port: number): Promise<HostPort>;
  /** The last lines of the container's stdout and stderr. */
  logs(containerId: string, lines: number): Promise<string>;
  /** The container's stdout, line by line, from its start until it exits or the signal aborts. */
  followOutput(containerId: string, signal: AbortSignal): AsyncIterable<string>;
  /** Docker's stats stream (about one reading per second) until the signal aborts or the container goes. */
  stats(containerId: string, signal: AbortSignal): AsyncIterable<DockerStatsReading>;
  /** Exit code once the container has stopped; undefined if it still runs after timeoutMs. */
  waitExit(containerId: string, timeoutMs: number): Promise<number | undefined>;
  stop(containerId: string, timeoutSeconds: number): Promise<void>;
  /**
   * A fault on a container: stop (SIGTERM, then SIGKILL after STOP_GRACE_SECONDS), start, kill
   * (SIGKILL), restart, pause (freezes its processes) or unpause. Throws with the engine's reason.
   */
  act(containerId: string, action: ContainerAction): Promise<void>;
  /**
   * The engine's events of the containers carrying all the given labels (those already created and
   * those to come) from `sinceNano` (unix ns) on, as they come, until the signal aborts.
   */
  containerEvents(
    labels: Record<string, string>,
    actions: readonly string[],
    sinceNano: bigint,
    signal: AbortSignal,
  ): AsyncIterable<ContainerEvent>;
  /** Removes (forcibly) every container, then every network, carrying all the given labels. */
  removeByLabel(labels: Record<string, string>): Promise<{ containers: number; networks: number }>;
  /** Values of `label` on the containers and networks carrying all of `where`, e.g. the run ids that have objects. */
  labelValues(label: string, where: Record<string, string>): Promise<Set<string>>;
  hostFacts(): Promise<Omit<THostFacts, "k6Version">>;
  /** The engine's nodes with their CPUs, memory and availability, as placement needs them; null on the local engine (one node, the host). */
  nodes(): Promise<TEngineNode[] | null>;
  /**
   * Makes the run's images (built on the host's engine) available where its containers run: nothing
   * on the local engine; on a cluster, pushed to its registry unless there already. Returns the
   * images pushed and those already there.
   */
  prepareImages(images: readonly string[], signal?: AbortSignal): Promise<{ pushed: string[]; skipped: string[] }>;
  /**
   * A probe of each given node's CPU counters, for host noise per node on a cluster of separate
   * machines: started now, its output opened with `follow(signal)` (lines of NODE_CPU_PROBE_SCRIPT);
   * none on the local engine, whose host the worker reads itself. What it starts carries
   * `probe.labels` and goes with the run's teardown.
   */
  nodeCpuProbes(nodes: readonly string[], probe: NodeCpuProbe): Promise<Map<string, NodeCpuFollow>>;
}

/** Opens a node probe's output, line by line, until the signal aborts. */
export type NodeCpuFollow = (signal: AbortSignal) => AsyncIterable<string>;

/** What a node's probe runs as: a container of `image` (one with bash: the lab's images are), named `name`-<node>. */
export type NodeCpuProbe = { name: string; image: string; labels: Record<string, string> };
