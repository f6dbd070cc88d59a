import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { dialedPorts } from "@scalelab/scenarios/components";
import { K6_DASHBOARD_PORT } from "@scalelab/scenarios/loadgen";
import { PlannedContainer, PlannedFile, UNTRUSTED } from "@scalelab/scenarios/plan";
import { DockerStatsReading } from "@scalelab/scenarios/analysis";
import {
  engineClientOptions,
  engineConnection,
  swarmNodeView,
  TEngineConfig,
  TEngineNode,
  TSwarmNodeJson,
} from "@scalelab/scenarios/contract";
import Docker from "dockerode";
import { DockerProvisioner } from "./docker";
import { pushImages, registryRef } from "./registry";
import {
  STOP_GRACE_SECONDS,
  ContainerAction,
  ContainerEvent,
  ContainerState,
  HostPort,
  NodeCpuFollow,
  NodeCpuProbe,
  Provisioner,
  StartedContainer,
} from "./types";

/** Swarm configs hold at most 500 KiB (swarmkit's MaxConfigSize). */
export const MAX_CONFIG_BYTES = 500 * 1024;
const TERMINAL = new Set(["complete", "failed", "shutdown", "rejected", "orphaned", "remove"]);
/** How long Swarm may keep a task pending with a reason ("no suitable node") before the start fails with it. */
const PENDING_WITH_REASON_MS = 5_000;

const statusOf = (err: unknown): number | undefined => (err as { statusCode?: number }).statusCode;
const labelFilter = (labels: Record<string, string>) => ({ label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) });

/** A dockerode client of an engine at tcp://host:port (over TLS with the certificates in tlsDir when given) or unix:///path. */
export function engineClient(endpoint: string, tlsDir: string | null): Docker {
  return new Docker(engineClientOptions(endpoint, tlsDir, readFileSync));
}

/** The address the worker dials a node's published ports at: its engine's host (the lab's own host for a unix socket). */
export function nodeHost(endpoint: string): string {
  const c = engineConnection(endpoint, null);
  return "host" in c ? c.host : "127.0.0.1";
}

/**
 * The ports the worker dials on a container (`dialedPorts`), plus k6's dashboard, which the load
 * step reads and no probe names. On Swarm each is published on the container's node in host mode.
 */
export function publishedPorts(spec: PlannedContainer): number[] {
  const ports = new Set(dialedPorts(spec));
  if (spec.component === "k6") ports.add(K6_DASHBOARD_PORT);
  return [...ports].sort((a, b) => a - b);
}

/** The name of a planned file's Swarm config: the container's name, the file's index and its content's hash (configs are immutable). */
export function configName(containerName: string, index: number, file: PlannedFile): string {
  const hash = createHash("sha256").update(file.path).update("\0").update(file.content).digest("hex").slice(0, 12);
  return `${containerName}-f${index}-${hash}`;
}

type Placed = { node: string; service?: string };

type SwarmTask = {
  ID: string;
  NodeID?: string;
  CreatedAt?: string;
  Status?: { State?: string; Err?: string; Message?: string; ContainerStatus?: { ContainerID?: string } };
};

/**
 * Runs a plan on a Docker Swarm cluster. Each planned container is a service with one task (so
 * per-container stats and faults keep working), on one attachable overlay network per run, with
 * DNS round-robin endpoints (this kernel has no IPVS for Swarm's VIPs) and the ports the worker
 * dials published in host mode on the task's node. Services, tasks, networks and configs go
 * through the manager; a task container's inspect, logs, stats, events and faults through the
 * engine of its node. Files are Swarm configs (a task's container cannot be written into before it
 * starts). A container that joins a network holder's namespace is a plain container on the
 * holder's node. Images are pulled from the engine's registry (`pushImages` puts them there).
 */
export class SwarmProvisioner implements Provisioner {
  private readonly manager: Docker;
  private readonly engineNodes = new Map<string, { docker: Docker; local: DockerProvisioner; host: string }>();
  /** Where each container this provisioner started (or found) runs. */
  private readonly placed = new Map<string, Placed>();
  /** Planned container name → its container id (a network holder's, for those that join it). */
  private readonly byName = new Map<string, string>();
  private nodeNames = new Map<string, string>();

  constructor(
    readonly config: TEngineConfig,
    private readonly opts: {
      /** The host's engine, which has the run's images (prepareImages pushes them from it). */
      host?: Docker;
      startTimeoutMs?: number;
      removeTimeoutMs?: number;
    } = {},
  ) {
    if (config.nodes.length === 0) throw new Error(`engine ${config.name} lists no nodes`);
    this.manager = engineClient(config.manager, config.tlsDir);
    for (const n of config.nodes) {
      const docker = engineClient(n.endpoint, config.tlsDir);
      this.engineNodes.set(n.name, {
        docker,
        local: new DockerProvisioner(docker),
        host: nodeHost(n.endpoint),
      });
    }
  }

  /** The reference a node pulls for a host image: in the engine's registry, or as given without one. */
  imageRef(image: string): string {
    return this.config.registry ? registryRef(this.config.registry.pull, image).ref : image;
  }

  /**
   * Puts the run's images (on the host engine) into the engine's registry, those it lacks only
   * (their tags are content hashes): what was pushed and what was there. Without a registry the
   * nodes must have the images already, and nothing is pushed.
   */
  async prepareImages(images: readonly string[], signal?: AbortSignal): Promise<{ pushed: string[]; skipped: string[] }> {
    if (!this.config.registry) return { pushed: [], skipped: [...images] };
    if (!this.opts.host) throw new Error(`engine ${this.config.name}: pushing images needs the host's Docker engine (opts.host)`);
    return pushImages(this.opts.host, this.config.registry, images, signal);
  }

  /**
   * Each node's machine's CPU counters, for host noise per node: a probe container on each node (the
   * given image, pulled from the registry like a task's) whose output is followed through the
   * node's engine. The probes carry the run's labels: the run's removal (removeByLabel on every
   * node) takes them.
   */
  async nodeCpuProbes(nodes: readonly string[], probe: NodeCpuProbe): Promise<Map<string, NodeCpuFollow>> {
    const image = this.imageRef(probe.image);
    const probes = await Promise.all(
      nodes.map(async (name) => {
        const n = this.node(name);
        await this.pull(n.docker, image);
        const id = await n.local.startCpuProbe(`${probe.name}-${name}`, image, probe.labels);
        this.placed.set(id, { node: name });
        return [name, (signal: AbortSignal) => n.local.followOutput(id, signal)] as const;
      }),
    );
    return new Map(probes);
  }

  private node(name: string) {
    const n = this.engineNodes.get(name);
    if (!n)
      throw new Error(
        `node ${JSON.stringify(name)} is not one of engine ${this.config.name}'s nodes (${[...this.engineNodes.keys()].join(", ")})`,
      );
    return n;
  }

  /** The node a container runs on: known from its start, or found by asking every node. */
  private async locate(containerId: string): Promise<{ name: string; docker: Docker; local: DockerProvisioner; host: string }> {
    const known = this.placed.get(containerId);
    if (known) return { name: known.node, ...this.node(known.node) };
    for (const [name, n] of this.engineNodes) {
      try {
        const info = await n.docker.getContainer(containerId).inspect();
        this.placed.set(containerId, { node: name });
        this.placed.set(info.Id, { node: name });
        return { name, ...n };
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    }
    throw Object.assign(new Error(`no node of engine ${this.config.name} has container ${containerId}`), { statusCode: 404 });
  }

  private async hostnameOf(nodeId: string): Promise<string> {
    if (!this.nodeNames.has(nodeId)) {
      const nodes = (await this.manager.listNodes()) as { ID: string; Description?: { Hostname?: string } }[];
      this.nodeNames = new Map(nodes.map((n) => [n.ID, n.Description?.Hostname ?? n.ID]));
    }
    return this.nodeNames.get(nodeId) ?? nodeId;
  }

  async createNetwork(spec: { name: string; labels: Record<string, string> }): Promise<void> {
    await this.manager.createNetwork({ Name: spec.name, Driver: "overlay", Attachable: true, CheckDuplicate: true, Labels: spec.labels });
  }

  async startContainer(spec: PlannedContainer, network: string): Promise<StartedContainer> {
    if (spec.networkOf !== undefined) return this.startJoined(spec, spec.networkOf);
    const configs = await Promise.all(spec.files.map((f, i) => this.ensureConfig(spec, f, i)));
    const ports = publishedPorts(spec);
    const service = await this.manager.createService({
      Name: spec.name,
      Labels: spec.labels,
      TaskTemplate: {
        ContainerSpec: {
          Image: this.imageRef(spec.image),
          Hostname: spec.hostname,
          Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
          ...(spec.entrypoint && { Command: spec.entrypoint }),
          ...(spec.cmd && { Args: spec.cmd }),
          Labels: spec.labels,
          // An init as PID 1 forwards SIGTERM: a shell entrypoint would otherwise wait out the grace period.
          Init: true,
          StopGracePeriod: STOP_GRACE_SECONDS * 1_000_000_000,
          HealthCheck: { Test: ["NONE"] },
          Configs: configs,
          ...(spec.untrusted && { CapabilityDrop: [...UNTRUSTED.dropCapabilities] }),
        },
        Resources: {
          Limits: {
            ...(spec.nanoCpus !== undefined && { NanoCPUs: spec.nanoCpus }),
            ...(spec.memoryBytes !== undefined && { MemoryBytes: spec.memoryBytes }),
            ...(spec.untrusted && { Pids: UNTRUSTED.pids }),
          },
        },
        // As on one host: a stopped or crashed container stays so; Swarm starts no replacement.
        RestartPolicy: { Condition: "none" },
        Placement: { Constraints: spec.node ? [`node.hostname==${spec.node}`] : [] },
        Networks: [{ Target: network, Aliases: spec.aliases }],
      },
      Mode: { Replicated: { Replicas: 1 } },
      EndpointSpec: { Mode: "dnsrr", Ports: ports.map((p) => ({ Protocol: "tcp", TargetPort: p, PublishMode: "host" })) },
    } as Docker.CreateServiceOptions);
    const { containerId, node } = await this.waitTask(service.id as string, spec);
    this.placed.set(containerId, { node, service: spec.name });
    this.byName.set(spec.name, containerId);
    return { id: containerId, name: spec.name, role: spec.role, node };
  }

  private async ensureConfig(spec: PlannedContainer, file: PlannedFile, index: number) {
    const size = Buffer.byteLength(file.content);
    if (size > MAX_CONFIG_BYTES) {
      throw new Error(`${spec.title}: the file ${file.path} is ${size} bytes; a Swarm config holds at most ${MAX_CONFIG_BYTES}`);
    }
    const name = configName(spec.name, index, file);
    let id: string;
    try {
      const created = await this.manager.createConfig({
        Name: name,
        Labels: spec.labels,
        Data: Buffer.from(file.content).toString("base64"),
      });
      id = (created as { id: string }).id;
    } catch (err) {
      // The same file of a start that is being retried.
      if (statusOf(err) !== 409) throw err;
      id = (await this.manager.getConfig(name).inspect()).ID;
    }
    return { File: { Name: file.path, UID: "0", GID: "0", Mode: 0o444 }, ConfigID: id, ConfigName: name };
  }

  /** Until the service's task has a container (running, or already ended: the pipeline sees that), or Swarm says why it cannot. */
  private async waitTask(serviceId: string, spec: PlannedContainer): Promise<{ containerId: string; node: string }> {
    const began = Date.now();
    const limit = this.opts.startTimeoutMs ?? 180_000;
    for (;;) {
      const tasks = (await this.manager.listTasks({ filters: { service: [serviceId] } })) as SwarmTask[];
      const task = tasks.sort((a, b) => (b.CreatedAt ?? "").localeCompare(a.CreatedAt ?? ""))[0];
      const state = task?.Status?.State ?? "";
      const containerId = task?.Status?.ContainerStatus?.ContainerID;
      const reason = task?.Status?.Err || task?.Status?.Message || state;
      // A container that could not start (its Err says so) fails the start with Swarm's reason; one that ran and ended is the pipeline's to describe.
      const neverRan = state === "rejected" || /^starting container failed/.test(task?.Status?.Err ?? "");
      if (task && containerId && !neverRan && (state === "running" || TERMINAL.has(state))) {
        return { containerId, node: await this.hostnameOf(task.NodeID ?? "") };
      }
      if (task && TERMINAL.has(state))
        throw new Error(`${spec.title} (${spec.name}) did not start on engine ${this.config.name}: ${reason}`);
      if (state === "pending" && task?.Status?.Err && Date.now() - began > PENDING_WITH_REASON_MS) {
        throw new Error(`${spec.title} (${spec.name}) cannot be placed on engine ${this.config.name}: ${task.Status.Err}`);
      }
      if (Date.now() - began > limit) {
        throw new Error(
          `${spec.title} (${spec.name}) did not start on engine ${this.config.name} within ${limit / 1000} s (task ${state || "not created"}: ${reason})`,
        );
      }
      await sleep(200);
    }
  }

  /** A container in its network holder's namespace: a plain container on the holder's node. */
  private async startJoined(spec: PlannedContainer, holderName: string): Promise<StartedContainer> {
    const holderId = this.byName.get(holderName);
    if (!holderId) throw new Error(`${spec.title} joins ${holderName}, which this worker did not start`);
    const at = await this.locate(holderId);
    const image = this.imageRef(spec.image);
    await this.pull(at.docker, image);
    const started = await at.local.startContainer({ ...spec, image, networkOf: holderId }, "");
    this.placed.set(started.id, { node: at.name });
    this.byName.set(spec.name, started.id);
    return { ...started, node: at.name };
  }

  /** Pulls the image onto a node's engine unless it has it (a plain container is not pulled for, as a service is). */
  private async pull(docker: Docker, image: string): Promise<void> {
    try {
      await docker.getImage(image).inspect();
      return;
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
    const stream = (await docker.pull(image)) as NodeJS.ReadableStream;
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null, events: { error?: string }[]) => {
        const failed = err?.message ?? events.find((e) => e.error)?.error;
        if (failed) reject(new Error(`pulling ${image} failed: ${failed}`));
        else resolve();
      }),
    );
  }

  async runIsolated(spec: PlannedContainer, timeoutMs: number) {
    const name = spec.node ?? this.config.nodes[0]!.name;
    const n = this.node(name);
    const image = this.imageRef(spec.image);
    await this.pull(n.docker, image);
    return n.local.runIsolated({ ...spec, image }, timeoutMs);
  }

  async putFiles(containerId: string, files: PlannedFile[]): Promise<void> {
    await (await this.locate(containerId)).local.putFiles(containerId, files);
  }

  async inspect(containerId: string, network: string): Promise<ContainerState> {
    return (await this.locate(containerId)).local.inspect(containerId, network);
  }

  async dialAddress(containerId: string, network: string, port: number): Promise<HostPort> {
    const at = await this.locate(containerId);
    const info = await at.docker.getContainer(containerId).inspect();
    const owner = /^container:(.+)$/.exec(info.HostConfig.NetworkMode ?? "")?.[1];
    // A container in its holder's namespace is reached through the holder's published ports.
    const bound = owner ? await at.docker.getContainer(owner).inspect() : info;
    const published = bound.NetworkSettings.Ports?.[`${port}/tcp`]?.[0]?.HostPort;
    if (!published) {
      throw new Error(
        `port ${port} of ${info.Name.replace(/^\//, "")} is not published on node ${at.name} (it is published only while the container runs, and only the ports the plan dials)`,
      );
    }
    return { host: at.host, port: Number(published) };
  }

  async logs(containerId: string, lines: number): Promise<string> {
    return (await this.locate(containerId)).local.logs(containerId, lines);
  }

  async *followOutput(containerId: string, signal: AbortSignal): AsyncIterable<string> {
    yield* (await this.locate(containerId)).local.followOutput(containerId, signal);
  }

  async *stats(containerId: string, signal: AbortSignal): AsyncIterable<DockerStatsReading> {
    yield* (await this.locate(containerId)).local.stats(containerId, signal);
  }

  async waitExit(containerId: string, timeoutMs: number): Promise<number | undefined> {
    return (await this.locate(containerId)).local.waitExit(containerId, timeoutMs);
  }

  async stop(containerId: string, timeoutSeconds: number): Promise<void> {
    const at = await this.locate(containerId).catch((err: unknown) => {
      if (statusOf(err) === 404) return undefined;
      throw err;
    });
    await at?.local.stop(containerId, timeoutSeconds);
  }

  async act(containerId: string, action: ContainerAction): Promise<void> {
    const at = await this.locate(containerId);
    try {
      await at.local.act(containerId, action);
    } catch (err) {
      // Swarm detaches a task's overlay network once its container stops; only a container in a
      // network holder's namespace (the plan gives every stop, kill and restart target one) starts again.
      if (action === "start" && this.placed.get(containerId)?.service && /network .* not found/.test((err as Error).message)) {
        throw new Error(
          `Swarm does not start a stopped task's container again (its network attachment is gone): ${(err as Error).message}`,
        );
      }
      throw err;
    }
  }

  /** Every node's events, merged as they come; a task container is named after its service (the planned name). */
  async *containerEvents(
    labels: Record<string, string>,
    actions: readonly string[],
    sinceNano: bigint,
    signal: AbortSignal,
  ): AsyncIterable<ContainerEvent> {
    const streams = [...this.engineNodes.entries()].map(([name, n]) => ({
      name,
      it: n.local.containerEvents(labels, actions, sinceNano, signal)[Symbol.asyncIterator](),
    }));
    const next = (i: number) => streams[i]!.it.next().then((r) => ({ i, r }));
    const pending = new Map(streams.map((_, i) => [i, next(i)]));
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values());
      if (r.done) {
        pending.delete(i);
        continue;
      }
      pending.set(i, next(i));
      const e = r.value;
      if (!this.placed.has(e.id)) this.placed.set(e.id, { node: streams[i]!.name });
      yield { ...e, name: e.attributes["com.docker.swarm.service.name"] ?? e.name };
    }
  }

  async removeByLabel(labels: Record<string, string>): Promise<{ containers: number; networks: number }> {
    const filters = labelFilter(labels);
    const services = await this.manager.listServices({ filters });
    const removedServices = await Promise.all(services.map((s) => removing(() => this.manager.getService(s.ID).remove())));
    let containers = removedServices.filter(Boolean).length;
    // The plain containers (those in a holder's namespace), then until the removed services' task containers are gone.
    // A node that does not answer is skipped, not the end of the removal: the configs and the
    // network are the manager's and are removed all the same; the error then says what is left,
    // and the sweep tries again.
    const deadline = Date.now() + (this.opts.removeTimeoutMs ?? 60_000);
    const unreachable = new Map<string, string>();
    for (let pass = 0; ; pass++) {
      const found = (
        await Promise.all(
          [...this.engineNodes.entries()].map(async ([name, n]) => {
            try {
              return [{ n, list: await n.docker.listContainers({ all: true, filters }) }];
            } catch (err) {
              unreachable.set(name, (err as Error).message);
              return [];
            }
          }),
        )
      ).flat();
      if (found.every((f) => f.list.length === 0)) break;
      if (Date.now() > deadline) {
        unreachable.set("*", `containers of ${JSON.stringify(labels)} are still on engine ${this.config.name}'s nodes`);
        break;
      }
      for (const { n, list } of found) {
        await Promise.all(list.filter((c) => c.State === "paused").map((c) => removing(() => n.docker.getContainer(c.Id).unpause())));
        const removed = await Promise.all(list.map((c) => removing(() => n.docker.getContainer(c.Id).remove({ force: true, v: true }))));
        if (pass === 0) containers += list.filter((c, i) => removed[i] && !c.Labels["com.docker.swarm.task.id"]).length;
      }
      await sleep(250);
    }
    const configs = await this.manager.listConfigs({ filters });
    await Promise.all(configs.map((c) => retrying(deadline, () => removing(() => this.manager.getConfig(c.ID).remove()))));
    const networks = await this.manager.listNetworks({ filters });
    const removedNetworks = await Promise.all(
      networks.map((n) => retrying(deadline, () => removing(() => this.manager.getNetwork(n.Id).remove()))),
    );
    // The manager lists a removed network for a moment longer: done once it no longer does.
    while ((await this.manager.listNetworks({ filters })).length > 0) {
      if (Date.now() > deadline) throw new Error(`the network of ${JSON.stringify(labels)} is still on engine ${this.config.name}`);
      await sleep(250);
    }
    if (unreachable.size > 0) {
      const why = [...unreachable].map(([node, e]) => (node === "*" ? e : `node ${node}: ${e}`)).join("; ");
      throw new Error(`removed the services, configs and network of ${JSON.stringify(labels)}, but not every node's containers: ${why}`);
    }
    for (const [id, p] of this.placed) if (p.service && services.some((s) => s.Spec?.Name === p.service)) this.placed.delete(id);
    return { containers, networks: removedNetworks.filter(Boolean).length };
  }

  /** Over the manager's services, configs and networks and every node's containers; a node that does not answer is left out (its leftovers are found once it does). */
  async labelValues(label: string, where: Record<string, string>): Promise<Set<string>> {
    const filters = labelFilter(where);
    const [services, configs, networks, perNode] = await Promise.all([
      this.manager.listServices({ filters }),
      this.manager.listConfigs({ filters }),
      this.manager.listNetworks({ filters }),
      Promise.allSettled([...this.engineNodes.values()].map((n) => n.docker.listContainers({ all: true, filters }))),
    ]);
    const values = [
      ...services.map((s) => s.Spec?.Labels?.[label]),
      ...configs.map((c) => (c.Spec as { Labels?: Record<string, string> } | undefined)?.Labels?.[label]),
      ...networks.map((n) => n.Labels?.[label]),
      ...perNode.flatMap((r) => (r.status === "fulfilled" ? r.value : [])).map((c) => c.Labels?.[label]),
    ].filter((v): v is string => Boolean(v));
    return new Set(values);
  }

  /** The cluster's totals: every node's CPUs and memory as Swarm reports them; kernel, OS and version of the manager. */
  async nodes(): Promise<TEngineNode[]> {
    const nodes = (await this.manager.listNodes()) as TSwarmNodeJson[];
    // Only the nodes the engine's config gives an endpoint for: the worker can read and act on no
    // other. By name: placement takes the engine's order, which must not depend on the manager's listing.
    return nodes
      .map(swarmNodeView)
      .filter((n) => this.engineNodes.has(n.name))
      .map(({ name, cpus, memoryBytes, availability, state }) => ({ name, cpus, memoryBytes, availability, state }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async hostFacts() {
    const [nodes, info, version] = await Promise.all([this.manager.listNodes(), this.manager.info(), this.manager.version()]);
    const resources = (nodes as { Description?: { Resources?: { NanoCPUs?: number; MemoryBytes?: number } } }[]).map(
      (n) => n.Description?.Resources ?? {},
    );
    return {
      cpus: resources.reduce((s, r) => s + (r.NanoCPUs ?? 0), 0) / 1e9,
      memoryBytes: resources.reduce((s, r) => s + (r.MemoryBytes ?? 0), 0),
      kernel: info.KernelVersion as string,
      os: `${info.OperatingSystem as string} (Swarm ${this.config.name}, ${nodes.length} nodes)`,
      dockerVersion: version.Version,
    };
  }
}

/** Ignores "no such object" (already gone; Swarm may say so with a 500) and "removal already in progress". */
async function removing(op: () => Promise<unknown>): Promise<boolean> {
  try {
    await op();
    return true;
  } catch (err) {
    if (statusOf(err) === 404 || statusOf(err) === 409) return false;
    if (statusOf(err) === 500 && /not found/.test((err as Error).message)) return false;
    throw err;
  }
}

/** Retries while the object is still in use (a config or network whose tasks are going), until the deadline. */
async function retrying<T>(deadline: number, op: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await op();
    } catch (err) {
      const inUse = statusOf(err) === 400 || statusOf(err) === 403 || /in use|active endpoints/i.test((err as Error).message);
      if (!inUse || Date.now() > deadline) throw err;
      await sleep(250);
    }
  }
}
