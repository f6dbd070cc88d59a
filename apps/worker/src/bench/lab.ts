/**
 * What the control plane costs while a run is live, and how soon a run shows its first second,
 * against a running lab (`bash scripts/up.sh`, warm images), through its REST API and the run
 * page's live subscription like a user would. Prints Markdown; docs/BENCHMARKS.md holds one
 * ("Control plane cost and time to first sample").
 *
 * 1. Time to first sample: posts a short run, opens the run page's subscription (`runs.live`,
 *    tRPC over SSE, what a browser on /runs/<id> opens) right after the POST's answer and times
 *    the first per-second sample it receives; also when the sample is visible over REST
 *    (`GET /api/v1/runs/{id}/samples`, polled each 100 ms). The run's own timestamps (claimed,
 *    each step's end in `run_events`, k6's start) and Docker's events for its containers split
 *    the time by step.
 * 2. Control plane CPU: during a hostname run for each of `--cases`, the CPU time of the worker's and
 *    the web's process groups (`/proc/<pid>/stat` utime + stime of every process of the group)
 *    over the load window (from the first stored sample for `durationSeconds - 3` s), as cores
 *    = Δcpu / Δwall; once with one live subscription open (the run page) and once with none.
 *    The bench itself follows the run through the database, never through the web, so the web's
 *    figure without a viewer is the web alone. An idle window (no run) is measured first.
 *
 * A first-sample run that had to build an image (someone changed the testbed's source) is not
 * counted: the figure is for warm images; another run takes its place.
 *
 *   DATABASE_URL=… REDIS_URL=… pnpm --filter @scalelab/worker bench:lab [--reps 5] [--cpu-reps 3] [--cases rate:100,vus:1,vus:50] [--only first,cpu]
 */
import { cpus } from "node:os";
import Docker from "dockerode";
import { TRunCreateInput, TRunSummary, TSample } from "@scalelab/scenarios/contract";
import { median } from "@scalelab/scenarios/analysis";
import { sseEvents } from "../sse";
import { openBench } from "./lib";

const { values, REPS, WEB, env, db, fmt, sleep, api, startRun, groupCpuSeconds } = await openBench({
  "cpu-reps": { type: "string", default: "3" },
  /** Load cases: `rate:N` = k6's open model at N req/s (arrivalRate), `vus:N` = N k6 VUs as fast as they go, `wrk:N` = wrk with N connections. */
  cases: { type: "string", default: "rate:100,vus:1,vus:50,wrk:50" },
  duration: { type: "string", default: "20" },
  idle: { type: "string", default: "10" },
  only: { type: "string", default: "first,cpu" },
});
const opt = values as Record<string, string>;
const CPU_REPS = Number(opt["cpu-reps"]);
const CASES = opt.cases!.split(",").map((c) => {
  const [kind, n] = c.split(":");
  if ((kind !== "rate" && kind !== "vus" && kind !== "wrk") || !(Number(n) > 0))
    throw new Error(`--cases: ${c} is none of rate:N, vus:N, wrk:N`);
  const label = kind === "rate" ? `${n} req/s (open model)` : kind === "wrk" ? `wrk, ${n} connections` : `${n} VU${n === "1" ? "" : "s"}`;
  return { kind, n: Number(n), label } as const;
});
type LoadCase = (typeof CASES)[number];
const DURATION = Number(opt.duration);
const only = new Set(opt.only!.split(","));
const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });

/** The run page's subscription: `runs.live` over SSE. Calls `onSample` with the bench clock's ms at each sample. */
function subscribe(id: string, onSample: (at: number, t: number) => void): { close(): void; done: Promise<void> } {
  const ctl = new AbortController();
  const input = encodeURIComponent(JSON.stringify({ id }));
  const done = (async () => {
    try {
      for await (const { event, data } of sseEvents(`${WEB}/api/trpc/runs.live?input=${input}`, {
        signal: ctl.signal,
        connectTimeoutMs: 10_000,
      })) {
        // tRPC's own events (connected, ping) carry no run data.
        if (event || !data) continue;
        const ev = JSON.parse(data) as { type?: string; samples?: TSample[]; sample?: TSample; run?: { status: string } };
        if (ev.type === "snapshot") for (const s of ev.samples ?? []) onSample(Date.now(), s.t);
        else if (ev.type === "sample" && ev.sample) onSample(Date.now(), ev.sample.t);
        else if (ev.type === "run") return;
      }
    } catch (err) {
      if (!ctl.signal.aborted) throw err;
    }
  })();
  return { close: () => ctl.abort(), done };
}

/** Until the run is terminal, read from the database (never through the web, whose CPU is measured). */
async function waitTerminal(id: string) {
  for (;;) {
    const run = await db.run.findUniqueOrThrow({ where: { id } });
    if (!["queued", "running"].includes(run.status)) {
      if (run.status !== "succeeded") throw new Error(`run ${id} ended ${run.status}: ${run.error}`);
      return run;
    }
    await sleep(250);
  }
}

const FIRST_BODY = (i: number): TRunCreateInput => ({
  name: `bench: first sample ${i + 1}`,
  topology: { service: { replicas: 1, memoryMb: 128 } },
  workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 },
});

/**
 * The way to the first sample, as the time between consecutive moments: the run's row (created,
 * claimed), the end of each step in `run_events`, Docker's own events for the run's containers
 * (create and start, with the engine's timestamps; a network's events carry no labels), k6's start
 * and the sample's arrival.
 */
const STEPS = [
  "queue pickup (POST → claimed)",
  "host facts + image check",
  "network + service container created",
  "service container started",
  "service ready (probe) + balancer created, config copied, started",
  "balancer ready through it (waiting_healthy)",
  "warm-up",
  "k6 container created, script copied, started",
  "k6 init → its test starts",
  "first 1 s bucket + delivery to the page",
] as const;

/** Docker's events for one run's objects between two moments: `<type>:<action>:<role>` → first time (ms). */
async function dockerEvents(id: string, since: Date): Promise<Map<string, number>> {
  const stream = (await docker.getEvents({
    since: Math.floor(since.getTime() / 1000) - 1,
    until: Math.ceil(Date.now() / 1000),
    filters: { label: [`scalelab.run=${id}`] },
  })) as unknown as AsyncIterable<Buffer>;
  const out = new Map<string, number>();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += String(chunk);
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines.filter(Boolean)) {
      const e = JSON.parse(line) as { Type: string; Action: string; timeNano: number; Actor: { Attributes: Record<string, string> } };
      const key = `${e.Type}:${e.Action}:${e.Actor.Attributes["scalelab.role"] ?? ""}`;
      if (!out.has(key)) out.set(key, e.timeNano / 1e6);
    }
  }
  return out;
}

async function firstSample(i: number) {
  const { id, postedAt } = await startRun(FIRST_BODY(i));
  const answered = Date.now();
  const postMs = performance.now() - postedAt;
  let sse: number | undefined;
  const live = subscribe(id, (at) => (sse ??= at));
  let rest: number | undefined;
  while (rest === undefined) {
    if ((await api<unknown[]>(`/runs/${id}/samples`)).length > 0) rest = Date.now();
    else await sleep(100);
  }
  for (let k = 0; k < 50 && sse === undefined; k++) await sleep(100);
  live.close();
  const run = await waitTerminal(id);
  const events = await db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  const ended = (step: string) => events.find((e) => e.message.startsWith(`${step} took `))?.at.getTime() ?? NaN;
  const engine = await dockerEvents(id, run.createdAt);
  const at = (key: string) => engine.get(key) ?? NaN;
  const bounds = [
    run.createdAt.getTime(),
    run.startedAt!.getTime(),
    ended("preparing_images"),
    at("container:create:app"),
    at("container:start:app"),
    ended("provisioning"),
    ended("waiting_healthy"),
    ended("warmup"),
    at("container:start:loadgen"),
    run.loadStartedAt!.getTime(),
    sse ?? rest,
  ];
  const steps = Object.fromEntries(STEPS.map((s, k) => [s, (bounds[k + 1]! - bounds[k]!) / 1000]));
  const detail = events.find((e) => e.message.startsWith("warm-up:"))?.message ?? "";
  const built = events.some((e) => e.step === "preparing_images" && / built$/.test(e.message));
  return {
    id,
    built,
    postMs,
    sse: sse === undefined ? NaN : (sse - answered) / 1000,
    rest: (rest - answered) / 1000,
    fromCreated: ((sse ?? rest) - bounds[0]!) / 1000,
    steps,
    detail,
  };
}

function cpuNow() {
  return { worker: groupCpuSeconds("worker"), web: groupCpuSeconds("web"), at: performance.now() };
}
function coresSince(before: ReturnType<typeof cpuNow>) {
  const now = cpuNow();
  const wall = (now.at - before.at) / 1000;
  return { worker: (now.worker - before.worker) / wall, web: (now.web - before.web) / wall, wall };
}

const CPU_BODY = (c: LoadCase, viewer: boolean): TRunCreateInput => ({
  name: `bench: control plane, ${c.label}${viewer ? ", live view" : ""}`,
  topology: { balancer: { kind: "none" }, service: { replicas: 1 } },
  workload: {
    endpoint: "hostname",
    ...(c.kind === "wrk"
      ? { loadgen: "wrk" as const, connections: c.n, threads: 1 }
      : c.kind === "vus"
        ? { vus: c.n }
        : { arrivalRate: c.n, maxVus: 50 }),
    durationSeconds: DURATION,
    loadgenCpus: 1,
  },
});

async function controlPlane(c: LoadCase, viewer: boolean) {
  const posted = cpuNow();
  const { id } = await startRun(CPU_BODY(c, viewer));
  const live = viewer ? subscribe(id, () => undefined) : undefined;
  // The load window: from the first stored sample, for the rest of the load but its last seconds.
  while ((await db.runSample.count({ where: { runId: id } })) === 0) {
    const r = await db.run.findUniqueOrThrow({ where: { id }, select: { status: true, error: true } });
    if (!["queued", "running"].includes(r.status)) throw new Error(`run ${id} ended ${r.status}: ${r.error}`);
    await sleep(100);
  }
  const before = cpuNow();
  await sleep((DURATION - 3) * 1000);
  const cores = coresSince(before);
  const run = await waitTerminal(id);
  const whole = coresSince(posted);
  live?.close();
  await live?.done.catch(() => undefined);
  const summary = run.summary as TRunSummary;
  const loadgen = await db.containerSample.findMany({ where: { runId: id, role: "loadgen" } });
  return { id, cores, whole, rps: summary.rps, loadgenCpu: median(loadgen.map((s) => s.cpuPct)) };
}

const host = `${cpus().length} CPUs (${cpus()[0]?.model ?? "?"})`;
console.error(
  `bench:lab: ${REPS} first-sample runs, ${CPU_REPS} CPU runs per case (${CASES.map((c) => c.label).join(", ")}), web ${WEB}, host ${host}`,
);
const lines: string[] = [`Measured ${new Date().toISOString().slice(0, 10)} on ${host}, warm images.`, ""];

if (only.has("first")) {
  const rows: Awaited<ReturnType<typeof firstSample>>[] = [];
  let skipped = 0;
  for (let i = 0; rows.length < REPS; i++) {
    if (i >= REPS * 3)
      throw new Error(`only ${rows.length} of ${i} first-sample runs found their images built; is someone editing an image's sources?`);
    const r = await firstSample(i);
    console.error(
      `first sample ${i + 1}${r.built ? " (built an image: not counted)" : ""}: SSE ${fmt(r.sse)} s, REST ${fmt(r.rest)} s, ${JSON.stringify(r.steps)} (${r.detail})`,
    );
    if (r.built) skipped++;
    else rows.push(r);
  }
  const m = (pick: (r: (typeof rows)[number]) => number) => fmt(median(rows.map(pick)));
  lines.push(
    `Time to first sample (1 replica behind nginx, hostname, 1 VU, 5 s; medians of ${REPS} runs with warm images${skipped ? `, ${skipped} run(s) that built an image left out` : ""}):`,
    "",
    "| what | median | runs |",
    "| --- | --- | --- |",
    `| POST /api/v1/runs answered → first sample on the run page's live subscription (SSE) | ${m((r) => r.sse)} s | ${rows.map((r) => fmt(r.sse)).join(", ")} |`,
    `| POST answered → first sample visible over REST (polled each 100 ms) | ${m((r) => r.rest)} s | ${rows.map((r) => fmt(r.rest)).join(", ")} |`,
    `| the POST itself | ${fmt(median(rows.map((r) => r.postMs / 1000)), 3)} s | |`,
    "",
    "| step (from the run's row, `run_events`, Docker's events and k6's start) | median |",
    "| --- | --- |",
    ...STEPS.map((s) => `| ${s} | ${m((r) => r.steps[s]!)} s |`),
    `| total, from the run's creation | ${m((r) => r.fromCreated)} s |`,
    "",
  );
}

if (only.has("cpu")) {
  // The last run's teardown and the processes' own clean-up after it are not idle time.
  await sleep(5000);
  const idleBefore = cpuNow();
  await sleep(Number(opt.idle) * 1000);
  const idle = coresSince(idleBefore);
  console.error(`idle: worker ${fmt(idle.worker, 4)}, web ${fmt(idle.web, 4)} cores`);
  type Case = { load: LoadCase; viewer: boolean; runs: Awaited<ReturnType<typeof controlPlane>>[] };
  const cases: Case[] = [];
  for (const load of CASES) {
    for (const viewer of [false, true]) {
      const c: Case = { load, viewer, runs: [] };
      for (let i = 0; i < CPU_REPS; i++) {
        const r = await controlPlane(load, viewer);
        console.error(
          `${load.label}${viewer ? " + live view" : ""}: ${fmt(r.rps, 0)} req/s, worker ${fmt(r.cores.worker, 4)}, web ${fmt(r.cores.web, 4)} cores over ${fmt(r.cores.wall, 1)} s (k6 ${fmt(r.loadgenCpu, 0)} %); whole run ${fmt(r.whole.wall, 1)} s: worker ${fmt(r.whole.worker, 4)}, web ${fmt(r.whole.web, 4)}`,
        );
        c.runs.push(r);
      }
      cases.push(c);
    }
  }
  const m = (c: Case, pick: (r: Case["runs"][number]) => number, digits = 3) => fmt(median(c.runs.map(pick)), digits);
  lines.push(
    `Control plane CPU over the load window (from the first sample, ${DURATION - 3} s of a ${DURATION} s hostname run, 1 replica, no balancer, the load generator (k6 or wrk) at 1 CPU; medians of ${CPU_REPS}); cores = Δ(utime + stime) of the process group / Δwall:`,
    "",
    "| load | live view | req/s | worker | web | together | load generator CPU | whole run (POST → done): worker, web |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    `| idle (no run, ${opt.idle} s) | — | — | ${fmt(idle.worker, 3)} | ${fmt(idle.web, 3)} | ${fmt(idle.worker + idle.web, 3)} | — | — |`,
    ...cases.map(
      (c) =>
        `| ${c.load.label} | ${c.viewer ? "1 subscription" : "none"} | ${m(c, (r) => r.rps, 0)} | ${m(c, (r) => r.cores.worker)} | ${m(c, (r) => r.cores.web)} | ${m(c, (r) => r.cores.worker + r.cores.web)} | ${m(c, (r) => r.loadgenCpu, 0)} % | ${m(c, (r) => r.whole.worker)}, ${m(c, (r) => r.whole.web)} (${m(c, (r) => r.whole.wall, 1)} s) |`,
    ),
    "",
  );
}

console.log(lines.join("\n"));
await db.$disconnect();
