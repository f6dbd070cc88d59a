/**
 * What the new components cost, against a running lab (`bash scripts/up.sh`): for Kafka, Postgres
 * and Cassandra, the image's cold build (with --cold: the image is removed first, and with
 * --cold-cache also the jars Maven downloaded) and warm check, and the time from start to ready
 * inside a run; then the control plane's CPU during an async (Kafka) run. Prints Markdown.
 *
 *   DATABASE_URL=… REDIS_URL=… pnpm --filter @scalelab/worker bench:components [--reps 3] [--cold]
 */
import { rm } from "node:fs/promises";
import { cpus, homedir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { ensureImages, BuildableImage } from "@scalelab/images";
import { TRunCreateInput } from "@scalelab/scenarios/contract";
import { median } from "@scalelab/scenarios/analysis";
import { openBench } from "./lib";

const { values, REPS, env, db, fmt, startRun, waitDone, groupCpuSeconds, api } = await openBench({
  cold: { type: "boolean", default: false },
  "cold-cache": { type: "boolean", default: false },
});
const flags = values as Record<string, unknown>;
const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });

const COMPONENTS: { name: string; image: BuildableImage; title: string; body: TRunCreateInput }[] = [
  {
    name: "Kafka (KRaft, 1 node, 512 MB)",
    image: "kafka",
    title: "the Kafka broker",
    body: {
      topology: { service: { replicas: 1 }, downstream: { mode: "async", replicas: 1 }, broker: { kind: "kafka", memoryMb: 512 } },
      workload: { endpoint: "cpu", vus: 1, durationSeconds: 5 },
    },
  },
  {
    name: "Postgres 15 (1 GB, schema + 100 products)",
    image: "postgres",
    title: "the Postgres store",
    body: {
      topology: { service: { replicas: 1 }, storage: { kind: "postgres" } },
      workload: { endpoint: "products", vus: 1, durationSeconds: 5 },
    },
  },
  {
    name: "Cassandra 5 (1 GB, keyspace + 100 products)",
    image: "cassandra",
    title: "the Cassandra store",
    body: {
      topology: { service: { replicas: 1 }, storage: { kind: "cassandra" } },
      workload: { endpoint: "products", vus: 1, durationSeconds: 5 },
    },
  },
];

async function imageSeconds(image: BuildableImage, cold: boolean): Promise<number> {
  if (cold) {
    const tags = (await docker.listImages({ filters: { reference: [`scalelab/${image}`] } })).flatMap((i) => i.RepoTags ?? []);
    for (const tag of tags) await docker.getImage(tag).remove({ force: true });
    // The jar sets Maven resolved (packages/images/src/maven.ts), shared by every image that uses them.
    if (flags["cold-cache"] === true) await rm(join(homedir(), ".cache", "scalelab", "jars"), { recursive: true, force: true });
  }
  const started = performance.now();
  await ensureImages(docker, [image]);
  return (performance.now() - started) / 1000;
}

async function readySeconds(id: string, title: string): Promise<number> {
  const events = await db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  const m = events.map((e) => new RegExp(`^${title} ready in ([\\d.]+) s$`).exec(e.message)).find(Boolean);
  if (!m) throw new Error(`run ${id} has no "${title} ready" event`);
  return Number(m[1]);
}

const rows: string[] = [];
for (const c of COMPONENTS) {
  // The Postgres image is the control plane's own: it always exists and is never removed here.
  const cold = flags.cold === true && c.image !== "postgres" ? await imageSeconds(c.image, true) : undefined;
  const warm = await imageSeconds(c.image, false);
  const ready: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const { id } = await startRun({ name: `bench: ${c.image} ready ${i + 1}`, ...c.body });
    await waitDone(id);
    ready.push(await readySeconds(id, c.title));
  }
  console.error(`${c.image}: cold ${cold ?? "-"} s, warm ${warm} s, ready ${ready.join(", ")}`);
  const coldText = cold !== undefined ? `${fmt(cold, 0)} s` : c.image === "postgres" ? "built with the control plane" : "not measured";
  rows.push(`| ${c.name} | ${coldText} | ${fmt(warm, 2)} s | ${fmt(median(ready), 1)} s | ${ready.map((x) => fmt(x, 1)).join(", ")} |`);
}

const ASYNC: TRunCreateInput = {
  name: "bench: control plane during an async run",
  topology: {
    service: { replicas: 2, cpus: 0.2 },
    downstream: { mode: "async", replicas: 2, cpus: 0.2 },
    broker: { kind: "kafka", memoryMb: 512 },
  },
  workload: { endpoint: "cpu", vus: 8, durationSeconds: 20 },
};
const before = { worker: groupCpuSeconds("worker"), web: groupCpuSeconds("web"), at: performance.now() };
const { id } = await startRun(ASYNC);
const run = await waitDone(id, async () => void (await api(`/runs/${id}/figures`)));
const wall = (performance.now() - before.at) / 1000;
const cpu = { worker: (groupCpuSeconds("worker") - before.worker) / wall, web: (groupCpuSeconds("web") - before.web) / wall };

const host = `${cpus().length} CPUs (${cpus()[0]?.model ?? "?"})`;
console.log(
  [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${host}; ready times are medians of ${REPS} runs.`,
    "",
    "| component | image, cold build | image, warm check | start → ready in a run (median) | runs |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
    `Control plane CPU during an async run (2 replicas and 2 consumers at 0.2 CPU, Kafka, 8 VUs, 20 s; ${fmt(wall, 1)} s wall, one client polling figures each 250 ms): ${run.summary?.rps} req/s, ${run.summary?.broker?.produced} events produced, ${run.summary?.broker?.consumed} consumed.`,
    "",
    "| process | CPU (cores) |",
    "| --- | --- |",
    `| worker (BullMQ, Docker stats of 7 containers, /stats polls, Postgres writes) | ${fmt(cpu.worker, 3)} |`,
    `| web (next start) | ${fmt(cpu.web, 3)} |`,
  ].join("\n"),
);
await db.$disconnect();
