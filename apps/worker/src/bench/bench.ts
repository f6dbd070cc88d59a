/**
 * What the lab itself costs, measured against a running lab (`bash scripts/up.sh`):
 * enqueue → first sample, provisioning and teardown times, the worker's and web's CPU during a
 * run, and the lab's largest req/s on the hostname endpoint next to wrk run by hand against the
 * same topology. Prints a Markdown report; docs/BENCHMARKS.md holds one.
 *
 *   DATABASE_URL=… REDIS_URL=… pnpm --filter @scalelab/worker bench [--reps 3]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpus } from "node:os";
import Docker from "dockerode";
import { ensureLabImages } from "@scalelab/images";
import { ENDPOINT_PATHS } from "@scalelab/scenarios/loadgen";
import { LB_PORT } from "@scalelab/scenarios/components";
import { buildPlan, runLabels } from "@scalelab/scenarios/plan";
import { ZRunCreate, TRunCreateInput } from "@scalelab/scenarios/contract";
import { median } from "@scalelab/scenarios/analysis";
import { openBench } from "./lib";
import { DockerProvisioner } from "../provisioner/docker";
import { hostPort, StartedContainer } from "../provisioner/types";

const { REPS, WEB, db, api, startRun, waitDone, stepSeconds, groupCpuSeconds, fmt, sleep, env } = await openBench();

const small = (replicas: number, name: string): TRunCreateInput => ({
  name,
  topology: { service: { replicas, memoryMb: 128 } },
  workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 },
});

async function timeToFirstSample() {
  const out: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const { id, postedAt } = await startRun(small(1, `bench: first sample ${i + 1}`));
    let first: number | undefined;
    for (;;) {
      const samples = await api<unknown[]>(`/runs/${id}/samples`);
      if (samples.length > 0) {
        first = performance.now() - postedAt;
        break;
      }
      await sleep(100);
    }
    out.push(first / 1000);
    await waitDone(id);
  }
  return out;
}

async function provisioning(replicas: number) {
  const rows: Record<string, number>[] = [];
  for (let i = 0; i < REPS; i++) {
    const { id } = await startRun(small(replicas, `bench: provisioning ${replicas} replicas ${i + 1}`));
    await waitDone(id);
    rows.push(await stepSeconds(id));
  }
  const pick = (k: string) => median(rows.map((r) => r[k] ?? NaN));
  return { provisioning: pick("provisioning"), healthy: pick("waiting_healthy"), teardown: pick("tearing_down") };
}

const MAX_BODY = (vus: number): TRunCreateInput => ({
  name: `bench: hostname ${vus} VUs`,
  topology: { service: { replicas: 1, memoryMb: 256 } },
  workload: { endpoint: "hostname", vus, durationSeconds: 20, loadgenCpus: 1 },
});

async function labMaxRps(vus: number) {
  const before = { worker: groupCpuSeconds("worker"), web: groupCpuSeconds("web"), at: performance.now() };
  const { id } = await startRun(MAX_BODY(vus));
  // Poll like an open run page would, so the web's cost includes serving a viewer.
  const run = await waitDone(id, async () => void (await api(`/runs/${id}/samples`)));
  const wall = (performance.now() - before.at) / 1000;
  const cpu = {
    worker: (groupCpuSeconds("worker") - before.worker) / wall,
    web: (groupCpuSeconds("web") - before.web) / wall,
  };
  const loadgen = await db.containerSample.findMany({ where: { runId: id, role: "loadgen" } });
  return { id, summary: run.summary!, cpu, wall, loadgenCpuMedian: median(loadgen.map((s) => s.cpuPct)) };
}

/** The same topology as the lab's max run, provisioned directly, with wrk on the host. */
async function wrkMaxRps(vus: number) {
  const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
  const provisioner = new DockerProvisioner(docker);
  const images = await ensureLabImages(docker);
  const runId = `bench-wrk-${Date.now().toString(36)}`;
  const plan = buildPlan({ runId, run: ZRunCreate.parse(MAX_BODY(vus)), images });
  try {
    await provisioner.createNetwork(plan.network);
    let lb: StartedContainer | undefined;
    for (const c of plan.containers) {
      const started = await provisioner.startContainer(c, plan.network.name);
      if (c.role === plan.entry.role) lb = started;
    }
    const url = `http://${hostPort(await provisioner.dialAddress(lb!.id, plan.network.name, LB_PORT))}${ENDPOINT_PATHS.hostname}`;
    for (let i = 0; i < 100 && spawnSync("curl", ["-fs", "-o", "/dev/null", url]).status !== 0; i++) await sleep(200);
    const results: Record<string, { rps: number; text: string }> = {};
    for (const threads of [1, 2]) {
      const text = execFileSync("wrk", [`-t${threads}`, `-c${vus}`, "-d20s", "--latency", url]).toString();
      results[`wrk -t${threads} -c${vus}`] = { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]), text };
    }
    return results;
  } finally {
    await provisioner.removeByLabel(runLabels(runId));
  }
}

const host = `${cpus().length} CPUs (${cpus()[0]?.model ?? "?"})`;
console.error(`bench: ${REPS} repetitions, web ${WEB}, host ${host}`);
const firstSample = await timeToFirstSample();
console.error(`first sample: ${firstSample.map((x) => fmt(x)).join(", ")} s`);
const prov: Record<number, Awaited<ReturnType<typeof provisioning>>> = {};
for (const n of [1, 4, 8]) {
  prov[n] = await provisioning(n);
  console.error(`provisioning ${n}: ${JSON.stringify(prov[n])}`);
}
const VUS = 64;
const lab = await labMaxRps(VUS);
console.error(`lab max: ${JSON.stringify(lab.summary)}`);
const wrk = await wrkMaxRps(VUS);

const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${host}, warm images, medians of ${REPS} runs.`,
  "",
  "| what | median | runs |",
  "| --- | --- | --- |",
  `| enqueue (POST /api/v1/runs) → first per-second sample visible over REST | ${fmt(median(firstSample))} s | ${firstSample.map((x) => fmt(x)).join(", ")} |`,
  "",
  "| replicas | provisioning (network + containers + config) | until healthy through nginx | teardown |",
  "| --- | --- | --- | --- |",
  ...[1, 4, 8].map((n) => `| ${n} | ${fmt(prov[n]!.provisioning, 1)} s | ${fmt(prov[n]!.healthy, 1)} s | ${fmt(prov[n]!.teardown, 1)} s |`),
  "",
  `Control plane CPU during a ${VUS}-VU, 20 s hostname run (the whole run, ${fmt(lab.wall, 1)} s wall, with one client polling samples each 250 ms):`,
  "",
  "| process | CPU (cores) |",
  "| --- | --- |",
  `| worker (tsx, BullMQ, dockerode stats, Postgres writes) | ${fmt(lab.cpu.worker, 3)} |`,
  `| web (next start) | ${fmt(lab.cpu.web, 3)} |`,
  "",
  `Largest req/s on the hostname endpoint: 1 replica (no CPU limit) behind nginx, ${VUS} connections, 20 s.`,
  "",
  "| load generator | req/s | p50 | p99 | notes |",
  "| --- | --- | --- | --- | --- |",
  `| the lab: k6 in a container limited to 1 CPU | ${fmt(lab.summary.rps, 0)} | ${fmt(lab.summary.latencyMs.p50)} ms | ${fmt(lab.summary.latencyMs.p99)} ms | k6 container CPU median ${fmt(lab.loadgenCpuMedian, 0)} % |`,
  ...Object.entries(wrk).map(([k, v]) => {
    const p50 = /50%\s+(\S+)/.exec(v.text)?.[1] ?? "?";
    const p99 = /99%\s+(\S+)/.exec(v.text)?.[1] ?? "?";
    return `| \`${k}\` on the host, no limit | ${fmt(v.rps, 0)} | ${p50} | ${p99} | same images, plan and nginx.conf |`;
  }),
];
console.log(lines.join("\n"));
await db.$disconnect();
