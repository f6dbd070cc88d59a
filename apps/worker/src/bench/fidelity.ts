/**
 * The lab's fidelity with wrk: the load-generator container the lab plans (sl-wrk with its
 * per-second report and per-backend counting, read by the same reader the pipeline uses) next to
 * stock `wrk` run by hand with the same threads, connections, duration and CPU limit, in the same
 * image, against the same containers. Alternated, so a drift of the shared host lands on both.
 * Needs only Docker (no control plane). Prints a Markdown report; docs/BENCHMARKS.md holds one.
 *
 *   pnpm --filter @scalelab/worker bench:fidelity [--reps 5] [--seconds 10] [--connections 100] [--threads 1] [--replicas 1]
 */
import { parseArgs } from "node:util";
import { cpus } from "node:os";
import Docker from "dockerode";
import { ensureImages } from "@scalelab/images";
import { wrkTotals } from "@scalelab/scenarios/loadgen";
import { buildPlan, requiredImages, runLabels, PlannedContainer } from "@scalelab/scenarios/plan";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { median } from "@scalelab/scenarios/analysis";
import { WrkOutputReader, WrkSummary } from "@scalelab/scenarios/loadgen";
import { parseEnv } from "../env";
import { DockerProvisioner } from "../provisioner/docker";
import { hostPort } from "../provisioner/types";

const { values } = parseArgs({
  options: {
    reps: { type: "string", default: "5" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "100" },
    threads: { type: "string", default: "1" },
    replicas: { type: "string", default: "1" },
  },
});
const seconds = Number(values.seconds);
const run = ZRunCreate.parse({
  topology: { balancer: { kind: "nginx" }, service: { replicas: Number(values.replicas), memoryMb: 256 } },
  workload: {
    loadgen: "wrk",
    connections: Number(values.connections),
    threads: Number(values.threads),
    endpoint: "hostname",
    durationSeconds: seconds,
    loadgenCpus: 1,
  },
});

const env = parseEnv();
const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
const provisioner = new DockerProvisioner(docker);
const images = await ensureImages(docker, requiredImages(run) as Parameters<typeof ensureImages>[1]);
const runId = `bench-fidelity-${Date.now().toString(36)}`;
const plan = buildPlan({ runId, run, images });
const lab = plan.loadgens[0]!;

async function ok(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within 60 s`);
}

/** Runs a load-generator container to its end and returns its whole output. */
async function runToEnd(spec: PlannedContainer): Promise<string> {
  const started = await provisioner.startContainer(spec, plan.network.name);
  const code = await provisioner.waitExit(started.id, (seconds + 30) * 1000);
  const out = await provisioner.logs(started.id, 500);
  await docker.getContainer(started.id).remove({ force: true });
  if (code !== 0) throw new Error(`${spec.name} exited with ${code}:\n${out}`);
  return out;
}

async function labRps(i: number): Promise<number> {
  const reader = new WrkOutputReader();
  let summary: WrkSummary | undefined;
  for (const line of (await runToEnd({ ...lab, name: `${lab.name}-lab-${i}` })).split("\n")) {
    const u = reader.push(line);
    if (u?.type === "stop") summary = u.summary;
  }
  if (!summary) throw new Error("sl-wrk printed no summary");
  return wrkTotals(summary, seconds).rps;
}

async function handRps(i: number): Promise<number> {
  const url = lab.cmd!.at(-1)!;
  const cmd = [
    "wrk",
    `-t${values.threads}`,
    `-c${values.connections}`,
    `-d${seconds}s`,
    "--timeout",
    `${run.workload.requestTimeoutMs / 1000}s`,
    "--latency",
    url,
  ];
  const text = await runToEnd({ ...lab, name: `${lab.name}-hand-${i}`, cmd, files: [] });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
  if (!Number.isFinite(rps)) throw new Error(`no Requests/sec in wrk's output:\n${text}`);
  return rps;
}

const results = { lab: [] as number[], hand: [] as number[] };
try {
  await provisioner.createNetwork(plan.network);
  // In plan order (replicas before the balancer), each answering its own HTTP probes before the next starts.
  for (const c of plan.containers) {
    const { id } = await provisioner.startContainer(c, plan.network.name);
    for (const probe of c.ready)
      if (probe.kind === "http")
        await ok(`http://${hostPort(await provisioner.dialAddress(id, plan.network.name, probe.port))}${probe.path}`);
  }
  for (let i = 0; i < Number(values.reps); i++) {
    // Alternate which goes first, so neither always follows the other's warm-up.
    const order = i % 2 === 0 ? (["lab", "hand"] as const) : (["hand", "lab"] as const);
    for (const which of order) {
      const rps = which === "lab" ? await labRps(i) : await handRps(i);
      results[which].push(rps);
      console.error(`${which} ${i + 1}: ${rps.toFixed(0)} req/s`);
    }
  }
} finally {
  await provisioner.removeByLabel(runLabels(runId));
}

const ratios = results.lab.map((x, i) => x / results.hand[i]!);
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
console.log(
  [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} CPUs: ${values.replicas} replica(s) behind nginx round robin, hostname endpoint, ${values.threads} thread(s), ${values.connections} connections, ${seconds} s, the load generator limited to 1 CPU; ${values.reps} alternated pairs.`,
    "",
    "| load generator | median req/s | runs |",
    "| --- | --- | --- |",
    `| the lab (sl-wrk, per-second report and per-backend counts, read by the pipeline's reader) | ${median(results.lab).toFixed(0)} | ${fmt(results.lab)} |`,
    `| stock \`wrk\` by hand, same image, flags and CPU limit | ${median(results.hand).toFixed(0)} | ${fmt(results.hand)} |`,
    "",
    `Ratio lab / hand: median of the pair ratios ${median(ratios).toFixed(3)} (pairs: ${ratios.map((r) => r.toFixed(2)).join(", ")}); ratio of the medians ${(median(results.lab) / median(results.hand)).toFixed(3)}.`,
  ].join("\n"),
);
