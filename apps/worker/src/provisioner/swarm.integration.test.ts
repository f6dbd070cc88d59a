import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { ensureImages } from "@scalelab/images";
import { containerUsage, DockerStatsReading } from "@scalelab/scenarios/analysis";
import { TEngineConfig, ZRunCreate } from "@scalelab/scenarios/contract";
import { buildPlan, LABELS, requiredImages, RunPlan } from "@scalelab/scenarios/plan";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instanceId, parseEnv } from "../env";
import { createLogger } from "../log";
import { DEFAULT_TIMEOUTS, PipelineDeps, RunContext } from "../pipeline/context";
import { provision, waitHealthy } from "../pipeline/provision";
import { RunReporter } from "../pipeline/reporter";
import { pushImages } from "./registry";
import { engineClient, SwarmProvisioner } from "./swarm";
import { waitFor } from "../testing/lab";
import { ContainerEvent, hostPort, StartedContainer } from "./types";

/*
 * The Swarm provisioner on a real cluster (bash scripts/swarm.sh up: three Docker-in-Docker nodes
 * and a registry), never mocked: the lab's images pushed to the cluster's registry, a run of three
 * testbed replicas behind nginx planned by buildPlan, one replica per node, started and probed by
 * the pipeline's own provisioning through the addresses the provisioner gives, stats from each
 * node, a stop and start of the replica on node 2, and the removal by label after a worker that
 * forgot the run. No cluster fails the suite, naming the command that starts one.
 */
const ENGINE_FILE = fileURLToPath(new URL("../../../../.scalelab/engines/swarm-local.json", import.meta.url));
const env = parseEnv();
const host = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
const log = createLogger("swarm");
const runId = randomUUID();
const instance = instanceId(env);
const controller = new AbortController();

const run = ZRunCreate.parse({
  name: "integration: Swarm",
  topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 3, cpus: 0.2, memoryMb: 64 } },
  workload: { endpoint: "hostname", vus: 1, durationSeconds: 60 },
  // A stop fault gives app-1 a network holder: app-1 is then a plain container in the holder's namespace.
  faults: [
    { at: 30, action: "stop", target: { role: "app", index: 1 } },
    { at: 40, action: "start", target: { role: "app", index: 1 } },
  ],
});
/** Ten times the testbed's default work per /cpu request: a replica at 0.2 CPU is then the bottleneck. */
const CPU_ITERATIONS = 10_000;
/** By host name (a network holder has its target's). */
const NODE_OF: Record<string, string> = { "app-0": "node1", "app-1": "node2", "app-2": "node3", lb: "node1" };

let config: TEngineConfig;
let provisioner: SwarmProvisioner;
let plan: RunPlan;
let started: Map<string, StartedContainer>;
let entryUrl: string;

const startedAs = (hostname: string) => {
  const spec = plan.containers.find((c) => c.hostname === hostname && c.role !== "netns")!;
  return started.get(spec.name)!;
};

beforeAll(async () => {
  const text = await readFile(ENGINE_FILE, "utf8").catch(() => {
    throw new Error(`no test cluster registered (${ENGINE_FILE} is missing): start one with \`bash scripts/swarm.sh up\``);
  });
  config = JSON.parse(text) as TEngineConfig;
  await engineClient(config.manager, config.tlsDir)
    .ping()
    .catch((err: Error) => {
      throw new Error(`the test cluster's manager ${config.manager} does not answer (${err.message}): \`bash scripts/swarm.sh up\``);
    });
  expect(config.nodes.map((n) => n.name)).toEqual(["node1", "node2", "node3"]);
  provisioner = new SwarmProvisioner(config, { host });

  const images = await ensureImages(host, requiredImages(run));
  const t0 = Date.now();
  const pushed = await provisioner.prepareImages(Object.values(images));
  log.info(
    `pushed ${pushed.pushed.length} image(s), ${pushed.skipped.length} already there, in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );

  plan = buildPlan({ runId, instance, run, images });
  plan = {
    ...plan,
    containers: plan.containers.map((c) => ({ ...c, node: NODE_OF[c.hostname] })),
  };
}, 600_000);

afterAll(async () => {
  controller.abort();
  // A failed test leaves nothing behind either.
  if (provisioner) await provisioner.removeByLabel({ [LABELS.run]: runId });
});

const report = {
  detail: async () => undefined,
  event: async (_level: string, message: string) => log.info(message),
} as unknown as RunReporter;
const ctx = (): RunContext => ({
  runId,
  run,
  deps: { docker: host, provisioner, instance, log, timeouts: { ...DEFAULT_TIMEOUTS, healthyMs: 90_000 } } as unknown as PipelineDeps,
  report,
  signal: controller.signal,
});

async function backendsSeen(url: string, requests: number): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (let i = 0; i < requests; i++) {
    const res = await fetch(`${url}/hostname`, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    const b = res.headers.get("x-backend") ?? `HTTP ${res.status}`;
    seen.set(b, (seen.get(b) ?? 0) + 1);
  }
  return seen;
}

describe("the Swarm provisioner on the test cluster", () => {
  it("runs three replicas on three nodes, which nginx on node 1 reaches by name (DNS round-robin), probed through the published ports", async () => {
    const t0 = Date.now();
    const provisioned = await provision(ctx(), plan);
    started = provisioned.started;
    ({ entryUrl } = await waitHealthy(ctx(), plan, provisioned.last, started));
    log.info(`topology (3 replicas, a holder, nginx) up and healthy on the cluster in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(["app-0", "app-1", "app-2", "lb"].map((h) => [h, startedAs(h).node])).toEqual([
      ["app-0", "node1"],
      ["app-1", "node2"],
      ["app-2", "node3"],
      ["lb", "node1"],
    ]);
    // The worker dials a node's address, not the container's overlay one.
    const nodeHosts = config.nodes.map((n) => new URL(n.endpoint.replace("tcp:", "http:")).hostname);
    expect(nodeHosts).toContain(new URL(entryUrl).hostname);
    const seen = await backendsSeen(entryUrl, 30);
    log.info(`30 requests through nginx: ${JSON.stringify(Object.fromEntries(seen))}`);
    expect([...seen.keys()].sort()).toEqual(["app-0", "app-1", "app-2"]);
  });

  it("reads each replica's CPU, throttling, memory and network from its own node's engine, under load", async () => {
    // CPU work through nginx for the whole reading: each replica at 0.2 CPU is busy and throttled.
    const load = new AbortController();
    const loops = Array.from({ length: 6 }, async () => {
      while (!load.signal.aborted)
        await fetch(`${entryUrl}/cpu?n=${CPU_ITERATIONS}`, { signal: load.signal }).then(
          (r) => r.arrayBuffer(),
          () => undefined,
        );
    });
    try {
      await Promise.all(
        ["app-0", "app-1", "app-2"].map(async (h) => {
          const c = startedAs(h);
          const readings: DockerStatsReading[] = [];
          for await (const r of provisioner.stats(c.id, AbortSignal.timeout(15_000))) {
            readings.push(r);
            if (readings.length === 4) break;
          }
          const usage = containerUsage(readings[3]!, readings[2]!);
          log.info(`${h} on ${c.node}: ${JSON.stringify(usage)}`);
          expect(usage, `${h} on ${c.node}`).toBeDefined();
          expect(usage!.memBytes).toBeGreaterThan(0);
          expect(usage!.cpuPct, `${h} CPU`).toBeGreaterThan(5);
          expect(usage!.periods, `${h} CFS periods`).toBeGreaterThan(0);
          expect(usage!.throttledPeriods, `${h} throttled periods`).toBeGreaterThan(0);
          expect(usage!.netRxBps, `${h} bytes in`).toBeGreaterThan(0);
          expect(usage!.netTxBps, `${h} bytes out`).toBeGreaterThan(0);
          expect((await provisioner.inspect(c.id, plan.network.name)).ip).toMatch(/^10\.200\./);
        }),
      );
    } finally {
      load.abort();
      await Promise.all(loops);
    }
  });

  it("stops and starts the replica on node 2, with its events, and it answers again at the same address", async () => {
    const app1 = startedAs("app-1");
    expect(app1.node).toBe("node2");
    const events: ContainerEvent[] = [];
    const watch = new AbortController();
    const since = BigInt(Date.now()) * 1_000_000n;
    const following = (async () => {
      for await (const e of provisioner.containerEvents({ [LABELS.run]: runId }, ["stop", "die", "start"], since, watch.signal))
        events.push(e);
    })();
    await provisioner.act(app1.id, "stop");
    expect((await provisioner.inspect(app1.id, plan.network.name)).running).toBe(false);
    await provisioner.act(app1.id, "start");
    const health = `http://${hostPort(await provisioner.dialAddress(app1.id, plan.network.name, 8080))}/health`;
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = await fetch(health, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    for (let i = 0; i < 50 && events.filter((e) => e.name === app1.name).length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    watch.abort();
    await following;
    const mine = events.filter((e) => e.name === app1.name).map((e) => e.action);
    log.info(`events of app-1: ${mine.join(", ")}`);
    expect(mine).toEqual(expect.arrayContaining(["stop", "die", "start"]));
    const seen = await backendsSeen(entryUrl, 30);
    expect([...seen.keys()].sort()).toEqual(["app-0", "app-1", "app-2"]);
  });

  it("a service task's own container, stopped, does not start again, and the error says why (hence the holders)", async () => {
    const app2 = startedAs("app-2");
    await provisioner.act(app2.id, "stop");
    // Once Swarm has seen the task end (a start before that may still find its network attached).
    const manager = engineClient(config.manager, config.tlsDir);
    await waitFor("Swarm to see app-2's task end", 10_000, async () => {
      const tasks = (await manager.listTasks({ filters: { service: [app2.name] } })) as { Status: { State: string } }[];
      return tasks.every((t) => t.Status.State !== "running") || undefined;
    });
    await new Promise((r) => setTimeout(r, 1_000));
    await expect(provisioner.act(app2.id, "start")).rejects.toThrow(/does not start a stopped task's container again/);
  });

  it("fails a start Swarm cannot place with Swarm's reason, and runs an isolated check on a chosen node", async () => {
    const app0 = plan.containers.find((c) => c.hostname === "app-0")!;
    const t0 = Date.now();
    await expect(provisioner.startContainer({ ...app0, name: `${app0.name}-nowhere`, node: "node9" }, plan.network.name)).rejects.toThrow(
      /cannot be placed on engine swarm-local: no suitable node/,
    );
    log.info(`an unplaceable start failed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const checked = await provisioner.runIsolated({ ...app0, name: `${app0.name}-check`, node: "node3", cmd: ["healthcheck"] }, 20_000);
    // No network: the testbed's health check finds no server and says so.
    expect(checked.exitCode).toBe(1);
    const facts = await provisioner.hostFacts();
    const nodeCpus = (await engineClient(config.nodes[0]!.endpoint, null).info()).NCPU as number;
    expect(facts.cpus).toBe(3 * nodeCpus);
    expect(facts.os).toMatch(/Swarm swarm-local, 3 nodes/);
  });

  it("finds the run after the worker forgot it and removes everything of it from every node", async () => {
    const forgetful = new SwarmProvisioner(config);
    const ours = { [LABELS.managed]: "true", [LABELS.instance]: instance };
    expect(await forgetful.labelValues(LABELS.run, ours)).toContain(runId);
    const t0 = Date.now();
    const removed = await forgetful.removeByLabel({ [LABELS.run]: runId });
    log.info(`removed ${JSON.stringify(removed)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(removed.networks).toBe(1);
    expect(removed.containers).toBeGreaterThanOrEqual(plan.containers.length);
    const filters = { label: [`${LABELS.run}=${runId}`] };
    const manager = engineClient(config.manager, config.tlsDir);
    expect(await manager.listServices({ filters })).toEqual([]);
    expect(await manager.listConfigs({ filters })).toEqual([]);
    expect(await manager.listNetworks({ filters })).toEqual([]);
    for (const n of config.nodes) {
      expect(await engineClient(n.endpoint, config.tlsDir).listContainers({ all: true, filters }), n.name).toEqual([]);
    }
    expect(await forgetful.labelValues(LABELS.run, ours)).not.toContain(runId);
  });

  it("pushes an image the registry lacks once; a second push pushes nothing", async () => {
    const testbed = (await ensureImages(host, ["testbed"])).testbed;
    const tag = `scalelab/swarm-push-test:${runId.slice(0, 8)}`;
    await host.getImage(testbed).tag({ repo: tag.split(":")[0]!, tag: tag.split(":")[1]! });
    try {
      expect(await pushImages(host, config.registry!, [tag])).toEqual({ pushed: [tag], skipped: [] });
      expect(await pushImages(host, config.registry!, [tag, testbed])).toEqual({ pushed: [], skipped: [tag, testbed] });
    } finally {
      await host.getImage(tag).remove({ noprune: true });
    }
  });
});
