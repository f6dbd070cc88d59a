import { execFile, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { saveEngine } from "@scalelab/db/engines";
import {
  ZFaultRecord,
  ZHostFacts,
  ZRunCreate,
  ZRunSummary,
  ZEngineConfig,
  TEngineConfig,
  THostFacts,
  TRunCreateInput,
} from "@scalelab/scenarios/contract";
import { ensureImages } from "@scalelab/images";
import { runFindings } from "@scalelab/scenarios/analysis";
import { buildPlan, LABELS, requiredImages } from "@scalelab/scenarios/plan";
import { beforeAll, describe, expect, it } from "vitest";
import { instanceId } from "./env";
import { createLogger } from "./log";
import { SwarmProvisioner } from "./provisioner/swarm";
import { sweepEngines } from "./sweeper";
import { useLabWorker } from "./testing/lab";

/*
 * Whole runs on the test Swarm cluster (bash scripts/swarm.sh up: three Docker-in-Docker nodes and
 * a registry), through the queue and the worker, as a user's REST call would make them: the run
 * names the engine `swarm-local`, the worker reads it from the database, places the containers,
 * pushes what the registry lacks, and runs the same pipeline as on one host. No cluster fails the
 * file naming the command that starts one.
 */
const ENGINE_FILE = fileURLToPath(new URL("../../../.scalelab/engines/swarm-local.json", import.meta.url));
const ctx = useLabWorker("swarm-run");
const execFileP = promisify(execFile);
let config: TEngineConfig;
let cluster: SwarmProvisioner;

beforeAll(async () => {
  const text = await readFile(ENGINE_FILE, "utf8").catch(() => {
    throw new Error(`no test cluster registered (${ENGINE_FILE} is missing): start one with \`bash scripts/swarm.sh up\``);
  });
  config = ZEngineConfig.parse(JSON.parse(text));
  cluster = new SwarmProvisioner(config, { host: ctx.docker });
  const nodes = await cluster.nodes().catch((err: Error) => {
    throw new Error(`the test cluster's manager ${config.manager} does not answer (${err.message}): \`bash scripts/swarm.sh up\``);
  });
  expect(nodes.filter((n) => n.state === "ready").map((n) => n.name)).toEqual(["node1", "node2", "node3"]);
  // As `lab engine add` stores it, in this test's own database.
  await saveEngine(ctx.lab.db, config.name, config.kind, config);
});

/** The node a run's container ran on, by its host name (`app-1`; the recorded names carry the run's prefix). */
const nodeOf = (host: THostFacts, hostname: string) =>
  Object.entries(host.containerNodes ?? {}).find(([name]) => name.endsWith(`-${hostname}`))?.[1];

async function run(body: TRunCreateInput, engine = config.name) {
  const id = await ctx.lab.createRun({ ...body, engine });
  const row = await ctx.lab.finished(id, 300_000);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  const timeline = events.map((e) => `${e.level} ${e.message}`).join("\n");
  expect(row.error, timeline).toBeNull();
  expect(row.status, timeline).toBe("succeeded");
  // Nothing of the run on any node, nor on the manager.
  expect([...(await cluster.labelValues(LABELS.run, { [LABELS.run]: id }))], timeline).toEqual([]);
  const host = ZHostFacts.parse(row.host);
  const summary = ZRunSummary.parse(row.summary);
  const samples = await ctx.lab.db.runSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  const cpu = await ctx.lab.db.containerSample.findMany({ where: { runId: id }, select: { container: true, t: true, cpuPct: true } });
  const answered = (t: number, backend: string) =>
    ((samples.find((s) => s.t === t)?.backends ?? {}) as Record<string, number>)[backend] ?? 0;
  console.log(
    `${body.name}: ${summary.requests} requests, ${summary.errors} errors, backends ${JSON.stringify(summary.backends)}, ` +
      `p95 ${summary.latencyMs.p95} ms (${summary.loadgen?.percentiles}), nodes ${JSON.stringify(host.containerNodes)}\n${timeline}`,
  );
  return { id, host, summary, samples, cpu, answered, timeline, faults: ZFaultRecord.array().parse(row.faults) };
}

describe("runs on the test Swarm cluster", () => {
  it("3 nginx round-robin replicas spread over 3 nodes, 2 k6 instances: per-node placement, per-second CPU of each replica, even counts, merged percentiles", async () => {
    const { host, summary, cpu, timeline } = await run({
      name: "swarm: spread",
      topology: {
        balancer: { kind: "nginx", algorithm: "round_robin" },
        service: { replicas: 3, cpus: 0.2, memoryMb: 64 },
        placement: { strategy: "spread" },
      },
      workload: { endpoint: "hostname", vus: 6, durationSeconds: 8, loadgenInstances: 2 },
    });
    const replicas = ["app-0", "app-1", "app-2"];
    expect(new Set(replicas.map((r) => nodeOf(host, r))).size, JSON.stringify(host.containerNodes)).toBe(3);
    expect(host.nodes?.map((n) => n.name).sort()).toEqual(["node1", "node2", "node3"]);
    expect(host.engine).toBe(config.name);
    // The test cluster's nodes are containers on this machine: its cores are the run's, and the findings say so first.
    expect(host.sharedMachine).toBe(true);
    expect(runFindings({ summary, hostCpus: host.cpus, sharedMachine: true })[0]?.code).toBe("nodes_share_machine");
    // The load generators on two nodes (spread like any role).
    const loadgens = Object.entries(host.containerNodes ?? {}).filter(([name]) => /-loadgen-\d+$/.test(name));
    expect(loadgens).toHaveLength(2);
    expect(new Set(loadgens.map(([, n]) => n)).size).toBe(2);
    // Per-second CPU of each replica, read through its own node's engine.
    for (const r of replicas) {
      const seconds = cpu.filter((c) => c.container.endsWith(`-${r}`));
      expect(seconds.length, `${r}'s CPU seconds`).toBeGreaterThanOrEqual(5);
      expect(Math.max(...seconds.map((s) => s.cpuPct)), `${r}'s CPU`).toBeGreaterThan(0);
    }
    // Round robin: each replica within 5 % of a third.
    const even = summary.requests / 3;
    for (const r of replicas)
      expect(Math.abs((summary.backends?.[r] ?? 0) - even) / even, `${r}: ${summary.backends?.[r]}`).toBeLessThan(0.05);
    expect(summary.loadgen?.percentiles).toBe("merged");
    expect(summary.nodes?.map((n) => n.node).sort()).toEqual(["node1", "node2", "node3"]);
    expect(timeline).toMatch(/engine swarm-local: pushed \d+ image\(s\)/);
  });

  it("a stop and start of the replica on node 2 and a delay in front of node 1's show on the timeline as on one host; 2 wrk instances merged; a second run pushes nothing", async () => {
    const { host, summary, samples, faults, answered, timeline } = await run({
      name: "swarm: stop and start on node 2",
      topology: {
        balancer: { kind: "nginx", algorithm: "round_robin", maxFails: 1, failTimeoutSeconds: 1 },
        service: { replicas: 3, cpus: 0.2, memoryMb: 64 },
      },
      workload: { loadgen: "wrk", endpoint: "hostname", connections: 6, threads: 1, durationSeconds: 10, loadgenInstances: 2 },
      faults: [
        { at: 3, action: "stop", target: { role: "app", index: 1 } },
        { at: 6, action: "start", target: { role: "app", index: 1 } },
        // A network fault across nodes: toxiproxy in front of app-0 (node 1), nginx reaching it over the overlay.
        { at: 2, action: "delay", ms: 100, target: { role: "app", index: 0 } },
        { at: 8, action: "clear", target: { role: "app", index: 0 } },
      ],
    });
    expect(nodeOf(host, "app-1")).toBe("node2");
    for (const f of faults) {
      expect(f.actual, timeline).toBeDefined();
      expect(f.actual!.error, timeline).toBeUndefined();
      // Looser than one host's 1 s: the action goes to the node's engine, inside a node container, beside the other lanes.
      expect(f.actual!.lagMs).toBeLessThan(2000);
    }
    expect(timeline).toMatch(/fault stop app-1 @3s applied at [34]\.\d{3} s/);
    expect(timeline).toMatch(/fault start app-1 @6s applied at [67]\.\d{3} s/);
    // Out of service while stopped, back at the end.
    expect(answered(4, "app-1"), "app-1 at 4 s").toBe(0);
    expect(answered(9, "app-1"), "app-1 at 9 s").toBeGreaterThan(0);
    expect(summary.faults?.map((e) => e.action).sort()).toEqual(["clear", "delay", "start", "stop"]);
    // Every answer of app-0 while the delay was on took at least its 100 ms: seconds 3–6 lie inside
    // 2–8 s even with the load generators' clocks a fraction of a second off the worker's (their
    // second 7 held answers after the clear: a mean of 92 ms on 2026-11-26); before it (second 0)
    // and after its clear (second 9) it answered quickly. Not the run's mean: round robin holds
    // every connection behind the delayed replica, so the fast seconds' count, and with it the
    // mean, depends on how fast the host was.
    const meanOf = (t: number, b: string) =>
      ((samples.find((x) => x.t === t)?.backendStats ?? {}) as Record<string, { latencyMs?: { avg?: number } }>)[b]?.latencyMs?.avg;
    console.log(`app-0's mean latency per second (ms): ${samples.map((x) => `${x.t}: ${meanOf(x.t, "app-0") ?? "-"}`).join(", ")}`);
    const delayed = [3, 4, 5, 6].filter((t) => answered(t, "app-0") > 0);
    expect(delayed.length, JSON.stringify(samples.map((x) => [x.t, x.backendStats]))).toBeGreaterThanOrEqual(3);
    for (const t of delayed) expect(meanOf(t, "app-0"), `app-0's mean at ${t} s`).toBeGreaterThanOrEqual(90);
    for (const t of [0, 9]) expect(meanOf(t, "app-0"), `app-0's mean at ${t} s`).toBeLessThan(50);
    expect(summary.loadgen?.percentiles).toBe("merged");
    // The images the first run pushed (the testbed's, nginx's) are not pushed again.
    expect(timeline).toMatch(/engine swarm-local: pushed \d+ image\(s\) to its registry/);
    expect(timeline).not.toMatch(/pushed \d+ image\(s\) to its registry \([^)]*(testbed|nginx)/);
  });

  it("on nodes said to be separate machines, each node's host CPU is read on the node, less its own containers: host noise per node", async () => {
    // The test cluster's nodes share this machine, so `auto` reads this machine once; said to be
    // separate (`lab engine add --machines separate`, as for a real cluster), each node's counters
    // are read through a probe on the node. Here every node's /proc/stat is this machine's: a busy
    // core outside the run is noise on each node.
    const apart = { ...config, name: "swarm-apart", machines: "separate" as const };
    await saveEngine(ctx.lab.db, apart.name, apart.kind, apart);
    const spinner = spawn("sh", ["-c", "while :; do :; done"], { stdio: "ignore" });
    let result: Awaited<ReturnType<typeof run>>;
    try {
      result = await run(
        {
          name: "swarm: host noise per node",
          topology: { service: { replicas: 2, cpus: 0.1, memoryMb: 64 } },
          workload: { vus: 2, durationSeconds: 6 },
        },
        apart.name,
      );
    } finally {
      spinner.kill("SIGKILL");
    }
    const { id, host, summary, timeline } = result;
    expect(host.sharedMachine, timeline).toBeUndefined();
    // Not the lab's host's figure: on separate machines it would describe none of them.
    expect(summary.hostNoise).toBeUndefined();
    const used = [...new Set(Object.values(host.containerNodes ?? {}))].sort();
    expect(used.length).toBeGreaterThanOrEqual(2);
    const rows = await ctx.lab.db.hostSample.findMany({ where: { runId: id }, orderBy: [{ node: "asc" }, { t: "asc" }] });
    expect([...new Set(rows.map((r) => r.node))].sort()).toEqual(used);
    const cpu = await ctx.lab.db.containerSample.findMany({ where: { runId: id } });
    for (const node of used) {
      const mine = rows.filter((r) => r.node === node);
      expect(mine.length, `${node}'s seconds`).toBeGreaterThanOrEqual(4);
      // The machine's cores, and only this node's containers subtracted.
      for (const r of mine) {
        expect(r.cores).toBe(host.nodes?.find((x) => x.name === node)?.cpus);
        const own = cpu.filter((c) => c.t === r.t && host.containerNodes?.[c.container] === node).reduce((n, c) => n + c.cpuPct, 0);
        expect(r.runCpuPct).toBeCloseTo(own, 1);
        expect(r.workerCpuPct).toBe(0);
      }
      const n = summary.nodes?.find((x) => x.node === node);
      expect(n?.hostNoise?.meanPct, `${node}: ${JSON.stringify(n)}`).toBeGreaterThanOrEqual(20);
      expect(timeline).toMatch(new RegExp(`other work on node ${node} used a mean`));
    }
    const findings = runFindings({ summary, hostCpus: host.cpus, sharedMachine: false }).filter((f) => f.code === "host_noise");
    expect(findings.map((f) => f.evidence.node).sort()).toEqual(used);
    // The probes went with the run (run() checked every node for its label).
    expect(timeline).toMatch(/removed \d+ container\(s\)/);
  });

  it("a run a killed worker left on the cluster (its row no longer running) is removed by the engines' sweep, as the next start does", async () => {
    // What a worker killed mid-run leaves: the run's network and a service on a node, and a row the next start marks interrupted.
    const id = await ctx.lab.createRun(
      {
        name: "swarm: left by a killed worker",
        engine: config.name,
        topology: { service: { replicas: 1 } },
        workload: { vus: 1, durationSeconds: 5 },
      },
      { enqueue: false, status: "interrupted" },
    );
    const instance = instanceId(ctx.env);
    const left = ZRunCreate.parse({ topology: { service: { replicas: 1 } }, workload: { vus: 1, durationSeconds: 5 } });
    const plan = buildPlan({ runId: id, instance, run: left, images: await ensureImages(ctx.docker, requiredImages(left)) });
    const replica = plan.containers.find((c) => c.role === "app")!;
    await cluster.prepareImages([replica.image]);
    await cluster.createNetwork({ name: plan.network.name, labels: plan.network.labels });
    await cluster.startContainer({ ...replica, node: "node2" }, plan.network.name);
    expect([...(await cluster.labelValues(LABELS.run, { [LABELS.run]: id }))]).toEqual([id]);
    const swept = await sweepEngines({
      db: ctx.lab.db,
      docker: ctx.docker,
      instance,
      current: () => undefined,
      log: createLogger("sweep"),
      callMs: 30_000,
    });
    expect(swept).toContain(id);
    expect([...(await cluster.labelValues(LABELS.run, { [LABELS.run]: id }))]).toEqual([]);
  });

  it("a container on a node reaches no node's engine API and not the registry (a user's image must not drive the cluster)", async () => {
    const image = `${config.registry!.pull}/scalelab/nginx`;
    const listed = await execFileP("docker", ["exec", "scalelab-swarm-node1", "docker", "images", "--format", "{{.Repository}}:{{.Tag}}"]);
    const tag = listed.stdout.split("\n").find((l) => l.startsWith(`${image}:`));
    expect(tag, "the earlier runs pulled nginx onto node1").toBeDefined();
    const targets = [
      ...config.nodes.map((n) => new URL(n.endpoint.replace(/^tcp:/, "http:")).host),
      config.registry!.pull,
      "172.17.0.1:2375",
    ];
    const script = targets
      .map((t) => `timeout 3 bash -c 'exec 3<>/dev/tcp/${t.replace(":", "/")}' 2>/dev/null && echo "${t} open" || echo "${t} closed"`)
      .join("; ");
    // The control: Swarm's own management port on the manager stays open to the same probe.
    const manager = `${new URL(config.manager.replace(/^tcp:/, "http:")).hostname}:2377`;
    const probe = `${script}; timeout 3 bash -c 'exec 3<>/dev/tcp/${manager.replace(":", "/")}' 2>/dev/null && echo "${manager} open" || echo "${manager} closed"`;
    const out = await execFileP("docker", [
      "exec",
      "scalelab-swarm-node1",
      "docker",
      "run",
      "--rm",
      "--entrypoint",
      "bash",
      tag!,
      "-c",
      probe,
    ]);
    expect(out.stdout.trim().split("\n")).toEqual([...targets.map((t) => `${t} closed`), `${manager} open`]);
    // The lab's host still reaches every engine (the test's own client).
    expect((await cluster.nodes()).length).toBe(3);
  });
});
