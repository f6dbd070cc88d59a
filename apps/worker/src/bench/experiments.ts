/**
 * The shapes of experiments 1, 2, 4, 5 and 7 of EXPERIMENTS.md, run through the lab's REST API like a
 * user's script would (`bash scripts/up.sh` first). Prints each pair's figures, the ratio, and what
 * the per-container CPU and the component figures say. Figures, not assertions.
 *
 *   DATABASE_URL=… REDIS_URL=… pnpm --filter @scalelab/worker bench:experiments [--reps 1] [--only 2,4,5]
 */
import { TRunCreateInput, TRunSummary } from "@scalelab/scenarios/contract";
import { median } from "@scalelab/scenarios/analysis";
import { openBench } from "./lib";

const { values, REPS, db, fmt, startRun, waitDone } = await openBench({ only: { type: "string", default: "2,4,5" } });
const only = new Set(String((values as Record<string, unknown>).only).split(","));

type Case = { label: string; body: TRunCreateInput };
type Experiment = { id: string; title: string; cases: Case[] };

const EXPERIMENTS: Experiment[] = [
  {
    id: "1",
    title: "Experiment 1: replicas on one host (nginx round robin, no CPU limit, hostname, wrk -t1 -c100, 20 s)",
    cases: [1, 4].map((replicas) => ({
      label: `${replicas} replica(s)`,
      body: {
        name: `exp 1: ${replicas} replica(s)`,
        topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas } },
        workload: { loadgen: "wrk", connections: 100, threads: 1, endpoint: "hostname", durationSeconds: 20 },
      },
    })),
  },
  {
    id: "7",
    title: "Experiment 7: what serves a hot key fastest (1 replica at 1 CPU hit directly, key, wrk -t1 -c200, 20 s)",
    cases: (["nginx_static", "nginx_lua", "memcached", "rack", "rack_trivial", "rails"] as const).map((kind) => ({
      label: kind,
      body: {
        name: `exp 7: ${kind}`,
        topology: { balancer: { kind: "none" }, service: { kind, replicas: 1, cpus: 1 } },
        workload: { loadgen: "wrk", connections: 200, threads: 1, endpoint: "key", durationSeconds: 20 },
      },
    })),
  },
  {
    id: "2",
    title: "Experiment 2: blocking I/O starves the request pool (pool 16, flush 20 ms, hostname, 200 VUs, 20 s)",
    cases: (["blocking", "async"] as const).map((logging) => ({
      label: `logging ${logging}`,
      body: {
        name: `exp 2: ${logging} logging`,
        topology: { service: { replicas: 1, cpus: 0.5, workerPool: 16, queueLimit: 0, logging, logFlushMs: 20 } },
        workload: { endpoint: "hostname", vus: 200, durationSeconds: 20 },
      },
    })),
  },
  {
    id: "4",
    title: "Experiment 4: sync call vs async queue (service and downstream at 0.2 CPU, cpu endpoint, 1 VU, 20 s)",
    cases: (["sync", "async"] as const).map((mode) => ({
      label: mode,
      body: {
        name: `exp 4: ${mode}`,
        topology: {
          service: { replicas: 1, cpus: 0.2 },
          downstream: { mode, replicas: 1, cpus: 0.2, cpuIterations: 1000 },
          ...(mode === "async" && { broker: { kind: "kafka" as const, cpus: 1, memoryMb: 512 } }),
        },
        workload: { endpoint: "cpu", vus: 1, durationSeconds: 20 },
      },
    })),
  },
  {
    id: "5",
    title: "Experiment 5: SQL vs NoSQL writes (activity, service 1 CPU, store 1 CPU and 2048 MB, pool 12)",
    cases: (["postgres", "cassandra"] as const).flatMap((kind) =>
      [1, 12].map((vus) => ({
        label: `${kind}, ${vus} VU`,
        body: {
          name: `exp 5: ${kind} ${vus} VU`,
          topology: { service: { replicas: 1, cpus: 1 }, storage: { kind, cpus: 1, memoryMb: 2048, poolSize: 12 } },
          workload: { endpoint: "activity" as const, vus, durationSeconds: 20 },
        },
      })),
    ),
  },
];

const cpuOf = (s: TRunSummary, role: string) => {
  const r = s.containers?.[role];
  return r ? `${role} ${fmt(r.medianCpuPct, 0)} %${r.pctOfLimit !== undefined ? ` (${fmt(r.pctOfLimit, 0)} % of limit)` : ""}` : undefined;
};

const out: string[] = [];
for (const exp of EXPERIMENTS.filter((e) => only.has(e.id))) {
  out.push(
    `### ${exp.title}`,
    "",
    "| case | req/s (median) | p50 | p95 | errors | CPU (median, % of one core) | component figures | runs (req/s) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const c of exp.cases) {
    const runs: TRunSummary[] = [];
    for (let i = 0; i < REPS; i++) {
      const { id } = await startRun(c.body);
      const done = await waitDone(id);
      runs.push(done.summary!);
      console.error(`${c.label}: ${done.summary!.rps} req/s (${id})`);
    }
    const mid = runs.sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!;
    const cpu = ["app", "lb", "logs", "consumer", "kafka", "db", "cache", "loadgen"]
      .map((r) => cpuOf(mid, r))
      .filter(Boolean)
      .join(", ");
    const figures = [
      `load generator ${mid.loadgen?.saturated ? "SATURATED" : "not saturated"} (median ${mid.loadgen?.medianCpuPct ?? "?"} % of its limit)`,
      mid.pool && `pool busy max ${mid.pool.maxBusy}/${mid.pool.size}, queued max ${mid.pool.maxQueued} (median ${mid.pool.medianQueued})`,
      mid.broker &&
        `broker produced ${mid.broker.produced}, consumed ${mid.broker.consumed}, max lag ${mid.broker.maxLag}, lag at end ${mid.broker.lagAtEnd}, drained ${mid.broker.drainSeconds ?? "no"} s`,
    ]
      .filter(Boolean)
      .join("; ");
    out.push(
      `| ${c.label} | ${fmt(median(runs.map((r) => r.rps)), 1)} | ${fmt(mid.latencyMs.p50)} ms | ${fmt(mid.latencyMs.p95)} ms | ${mid.errors} | ${cpu} | ${figures || "—"} | ${runs.map((r) => fmt(r.rps, 0)).join(", ")} |`,
    );
  }
  out.push("");
}
console.log(out.join("\n"));
await db.$disconnect();
