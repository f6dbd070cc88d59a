import { createInterface } from "node:readline";
import { PassThrough, Readable } from "node:stream";
import { PlannedContainer, PlannedFile, UNTRUSTED } from "@scalelab/scenarios/plan";
import { DockerStatsReading, NODE_CPU_PROBE_SCRIPT } from "@scalelab/scenarios/analysis";
import Docker from "dockerode";
import { demuxLogs } from "./logs";
import { tarFiles } from "./tar";
import {
  STOP_GRACE_SECONDS,
  ContainerAction,
  ContainerEvent,
  ContainerState,
  HostPort,
  LOCAL_NODE,
  NodeCpuFollow,
  Provisioner,
  StartedContainer,
} from "./types";

const statusOf = (err: unknown): number | undefined => (err as { statusCode?: number }).statusCode;
const labelFilter = (labels: Record<string, string>) => ({ label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) });

/** Ignores "no such object" (already gone) and "removal already in progress". */
async function removing(op: () => Promise<unknown>): Promise<boolean> {
  try {
    await op();
    return true;
  } catch (err) {
    if (statusOf(err) === 404 || statusOf(err) === 409) return false;
    throw err;
  }
}

/**
 * A user's image: not privileged, no capability added and Docker's defaults less those a web
 * service has no use for, no privilege gained through setuid binaries, a limit on its processes,
 * and nothing of the host: no binds, mounts or devices (its image's own VOLUMEs are anonymous
 * volumes, removed with it). Its only network is the run's internal one (NetworkMode).
 */
export const untrustedHostConfig = () => ({
  Privileged: false,
  CapAdd: [],
  CapDrop: [...UNTRUSTED.dropCapabilities],
  SecurityOpt: ["no-new-privileges:true"],
  PidsLimit: UNTRUSTED.pids,
  Binds: [],
  Mounts: [],
  Devices: [],
});

export class DockerProvisioner implements Provisioner {
  constructor(private readonly docker: Docker) {}

  async createNetwork(spec: { name: string; labels: Record<string, string> }): Promise<void> {
    // Internal: the run's containers reach each other and the worker reaches them by address, but
    // nothing of a run (a user's image, a script) reaches anything else.
    await this.docker.createNetwork({ Name: spec.name, Driver: "bridge", Internal: true, CheckDuplicate: true, Labels: spec.labels });
  }

  async startContainer(spec: PlannedContainer, network: string): Promise<StartedContainer> {
    // A container that joins its network holder's namespace takes the holder's address, names and host name.
    const joined = spec.networkOf !== undefined;
    const container = await this.docker.createContainer({
      name: spec.name,
      Image: spec.image,
      ...(!joined && { Hostname: spec.hostname }),
      Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
      ...(spec.cmd && { Cmd: spec.cmd }),
      ...(spec.entrypoint && { Entrypoint: spec.entrypoint }),
      Labels: spec.labels,
      // The pipeline checks health through the balancer; an image's periodic probe would only
      // spend CPU inside the limits being measured.
      Healthcheck: { Test: ["NONE"] },
      HostConfig: {
        NetworkMode: joined ? `container:${spec.networkOf}` : network,
        ...(spec.nanoCpus !== undefined && { NanoCpus: spec.nanoCpus }),
        // Swap equal to memory: the limit is a hard one, as on a server without swap.
        ...(spec.memoryBytes !== undefined && { Memory: spec.memoryBytes, MemorySwap: spec.memoryBytes }),
        ...(spec.untrusted && untrustedHostConfig()),
      },
      ...(!joined && { NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: spec.aliases } } } }),
    });
    if (spec.files.length > 0) await this.putFiles(container.id, spec.files);
    await container.start();
    return { id: container.id, name: spec.name, role: spec.role, node: LOCAL_NODE };
  }

  async runIsolated(spec: PlannedContainer, timeoutMs: number): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }> {
    const container = await this.docker.createContainer({
      name: spec.name,
      Image: spec.image,
      Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
      ...(spec.cmd && { Cmd: spec.cmd }),
      Labels: spec.labels,
      Healthcheck: { Test: ["NONE"] },
      HostConfig: {
        NetworkMode: "none",
        ...(spec.nanoCpus !== undefined && { NanoCpus: spec.nanoCpus }),
        ...(spec.memoryBytes !== undefined && { Memory: spec.memoryBytes, MemorySwap: spec.memoryBytes }),
      },
    });
    try {
      if (spec.files.length > 0) await this.putFiles(container.id, spec.files);
      await container.start();
      const exitCode = await this.waitExit(container.id, timeoutMs);
      const read = async (stream: "stdout" | "stderr") =>
        demuxLogs((await container.logs({ stdout: stream === "stdout", stderr: stream === "stderr", follow: false })) as Buffer);
      return { exitCode, stdout: await read("stdout"), stderr: await read("stderr") };
    } finally {
      await removing(() => container.remove({ force: true, v: true }));
    }
  }

  async putFiles(containerId: string, files: PlannedFile[]): Promise<void> {
    await this.docker.getContainer(containerId).putArchive(await tarFiles(files), { path: "/" });
  }

  async inspect(containerId: string, network: string): Promise<ContainerState> {
    const info = await this.docker.getContainer(containerId).inspect();
    const owner = /^container:(.+)$/.exec(info.HostConfig.NetworkMode ?? "")?.[1];
    // A container in its network holder's namespace is reached at the holder's address.
    const ip = owner
      ? ((await this.docker.getContainer(owner).inspect()).NetworkSettings.Networks[network]?.IPAddress ?? "")
      : (info.NetworkSettings.Networks[network]?.IPAddress ?? "");
    return {
      running: info.State.Running,
      exitCode: info.State.ExitCode,
      oomKilled: info.State.OOMKilled,
      error: info.State.Error ?? "",
      ip,
    };
  }

  async dialAddress(containerId: string, network: string, port: number): Promise<HostPort> {
    return { host: (await this.inspect(containerId, network)).ip, port };
  }

  async logs(containerId: string, lines: number): Promise<string> {
    const buf = (await this.docker.getContainer(containerId).logs({ stdout: true, stderr: true, tail: lines, follow: false })) as Buffer;
    return demuxLogs(buf).trimEnd();
  }

  async *followOutput(containerId: string, signal: AbortSignal): AsyncIterable<string> {
    if (signal.aborted) return;
    const options = { follow: true, stdout: true, stderr: false, abortSignal: signal } as { follow: true };
    const raw = (await this.docker.getContainer(containerId).logs(options)) as unknown as Readable;
    const stdout = new PassThrough();
    this.docker.modem.demuxStream(raw, stdout, new PassThrough().resume());
    // Destroyed (the signal aborted while the container still runs) it only closes: the lines end then too.
    raw.on("end", () => stdout.end());
    raw.on("close", () => stdout.end());
    raw.on("error", (err) => stdout.destroy(err));
    const stop = () => raw.destroy();
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    try {
      for await (const line of createInterface({ input: stdout, crlfDelay: Infinity })) yield line;
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      signal.removeEventListener("abort", stop);
      raw.destroy();
    }
  }

  async *stats(containerId: string, signal: AbortSignal): AsyncIterable<DockerStatsReading> {
    if (signal.aborted) return;
    const options = { stream: true, abortSignal: signal } as { stream: true };
    const stream = (await this.docker.getContainer(containerId).stats(options)) as unknown as Readable;
    for await (const line of jsonLines(stream, signal)) yield JSON.parse(line) as DockerStatsReading;
  }

  async waitExit(containerId: string, timeoutMs: number): Promise<number | undefined> {
    const wait = this.docker.getContainer(containerId).wait() as Promise<{ StatusCode: number }>;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, timeoutMs, undefined)));
    try {
      const r = await Promise.race([wait, timeout]);
      return r?.StatusCode;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(containerId: string, timeoutSeconds: number): Promise<void> {
    try {
      await this.docker.getContainer(containerId).stop({ t: timeoutSeconds });
    } catch (err) {
      // 304: already stopped.
      if (statusOf(err) !== 304 && statusOf(err) !== 404) throw err;
    }
  }

  async act(containerId: string, action: ContainerAction): Promise<void> {
    const c = this.docker.getContainer(containerId);
    switch (action) {
      case "stop":
        return c.stop({ t: STOP_GRACE_SECONDS });
      case "start":
        return c.start();
      case "kill":
        return c.kill({ signal: "SIGKILL" });
      case "restart":
        return c.restart({ t: STOP_GRACE_SECONDS });
      case "pause":
        return c.pause();
      case "unpause":
        return c.unpause();
    }
  }

  async *containerEvents(
    labels: Record<string, string>,
    actions: readonly string[],
    sinceNano: bigint,
    signal: AbortSignal,
  ): AsyncIterable<ContainerEvent> {
    if (signal.aborted) return;
    // The engine takes `since` as seconds with a fraction down to the nanosecond.
    const since = `${sinceNano / 1_000_000_000n}.${String(sinceNano % 1_000_000_000n).padStart(9, "0")}`;
    const filters = { ...labelFilter(labels), type: ["container"], event: [...actions] };
    const stream = (await this.docker.getEvents({
      since,
      filters,
      abortSignal: signal,
    } as unknown as Docker.GetEventsOptions)) as unknown as Readable;
    for await (const line of jsonLines(stream, signal)) {
      const e = JSON.parse(line) as { Action: string; Actor: { ID: string; Attributes?: Record<string, string> }; timeNano: number };
      // timeNano is beyond a double's precision: the JSON number is re-read from the line itself.
      const nano = BigInt(/"timeNano":(\d+)/.exec(line)?.[1] ?? Math.round(e.timeNano));
      const attributes = e.Actor.Attributes ?? {};
      yield { id: e.Actor.ID, name: attributes.name ?? "", action: e.Action, atMs: Number(nano / 1_000_000n), timeNano: nano, attributes };
    }
  }

  async removeByLabel(labels: Record<string, string>): Promise<{ containers: number; networks: number }> {
    const filters = labelFilter(labels);
    const containers = await this.docker.listContainers({ all: true, filters });
    // A paused container is thawed first: its processes then die by the removal's SIGKILL like any other.
    await Promise.all(containers.filter((c) => c.State === "paused").map((c) => removing(() => this.docker.getContainer(c.Id).unpause())));
    const removedContainers = await Promise.all(
      containers.map((c) => removing(() => this.docker.getContainer(c.Id).remove({ force: true, v: true }))),
    );
    const networks = await this.docker.listNetworks({ filters });
    const removedNetworks = await Promise.all(networks.map((n) => this.removeNetwork(n.Id)));
    return { containers: removedContainers.filter(Boolean).length, networks: removedNetworks.filter(Boolean).length };
  }

  /**
   * Removes a run's network. The engine may still count an endpoint of a container removed a moment
   * ago ("has active endpoints", a 403): each endpoint it lists is detached by force and the removal
   * tried again, for up to 5 s. (A stale endpoint the engine no longer lists, as Docker 20.10 kept
   * once under a full suite's load on 2026-11-26, survives this: the error then stands.)
   */
  private async removeNetwork(id: string): Promise<boolean> {
    const network = this.docker.getNetwork(id);
    for (let attempt = 1; ; attempt++) {
      try {
        return await removing(() => network.remove());
      } catch (err) {
        if (statusOf(err) !== 403 || attempt >= 20) throw err;
        const info = (await network.inspect().catch(() => null)) as { Containers?: Record<string, unknown> } | null;
        for (const container of Object.keys(info?.Containers ?? {})) {
          await network.disconnect({ Container: container, Force: true }).catch(() => undefined);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  async labelValues(label: string, where: Record<string, string>): Promise<Set<string>> {
    const filters = labelFilter(where);
    const [containers, networks] = await Promise.all([
      this.docker.listContainers({ all: true, filters }),
      this.docker.listNetworks({ filters }),
    ]);
    const values = [...containers, ...networks].map((o) => o.Labels?.[label]).filter((v): v is string => Boolean(v));
    return new Set(values);
  }

  /** The local engine built them: nothing to do. */
  async prepareImages(): Promise<{ pushed: string[]; skipped: string[] }> {
    return { pushed: [], skipped: [] };
  }

  /** The local engine's host is the worker's own: it reads /proc/stat itself (pipeline/host-cpu.ts). */
  async nodeCpuProbes(): Promise<Map<string, NodeCpuFollow>> {
    return new Map();
  }

  /**
   * A probe of this engine's machine: a container of `image` running NODE_CPU_PROBE_SCRIPT (bash
   * builtins only; no network, a twentieth of a CPU, 16 MiB), which prints the machine's CPU
   * counters (/proc/stat is not namespaced) every PROBE_INTERVAL_MS. Returns its id.
   */
  async startCpuProbe(name: string, image: string, labels: Record<string, string>): Promise<string> {
    const container = await this.docker.createContainer({
      name,
      Image: image,
      Entrypoint: ["bash", "-c", NODE_CPU_PROBE_SCRIPT],
      Cmd: [],
      Labels: labels,
      Healthcheck: { Test: ["NONE"] },
      HostConfig: { NetworkMode: "none", NanoCpus: 50_000_000, Memory: 16 * 2 ** 20, MemorySwap: 16 * 2 ** 20, Init: true },
    });
    await container.start();
    return container.id;
  }

  async nodes(): Promise<null> {
    return null;
  }

  async hostFacts() {
    const [info, version] = await Promise.all([this.docker.info(), this.docker.version()]);
    return {
      cpus: info.NCPU as number,
      memoryBytes: info.MemTotal as number,
      kernel: info.KernelVersion as string,
      os: info.OperatingSystem as string,
      dockerVersion: version.Version,
    };
  }
}

/**
 * The non-empty lines of one of the engine's JSON streams (stats, events) until it ends or the
 * signal aborts it; the stream is destroyed either way. An abort that came while the request was on
 * its way is seen at once (nobody would destroy the stream otherwise).
 */
async function* jsonLines(stream: Readable, signal: AbortSignal): AsyncIterable<string> {
  const stop = () => stream.destroy();
  if (signal.aborted) return stop();
  signal.addEventListener("abort", stop, { once: true });
  let buffered = "";
  try {
    for await (const chunk of stream) {
      buffered += String(chunk);
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) yield line;
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  } finally {
    signal.removeEventListener("abort", stop);
    stream.destroy();
  }
}
