/**
 * Fills the lab's database with finished runs, to try the runs list and its API at scale:
 *   DATABASE_URL=… pnpm --filter @scalelab/web seed:runs [--runs 10000]
 * Stand-alone runs (k6 and wrk, every end status) and, among them, experiments of 6 runs each, a
 * run every 7 minutes back from now; one old stand-alone run is named `needle <random>` for the
 * search benchmark (bench/runs-list.ts). Everything it writes is named `seed …`; it prints a JSON
 * line with what it wrote. Rows only: no job is queued, no container started.
 */
import { randomUUID } from "node:crypto";
import { createDb, type Prisma } from "@scalelab/db";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { ZExperimentCreate } from "@scalelab/scenarios/experiments";
import { getEnv } from "~/env";

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) throw new Error(`--${name} must be a whole number between 1 and 1000000`);
  return value;
};

const RUNS = arg("runs", 10_000);
const EXPERIMENT_RUNS = 6;
const STEP_MS = 7 * 60_000;
const STATUSES = ["succeeded", "succeeded", "succeeded", "failed", "cancelled", "interrupted"] as const;
const NAMES = ["replicas at 0.2 CPU", "least_conn vs round robin", "postgres pool 10", "kafka consumers", "cache in front", "wrk 64 conns"];

const definition = (i: number) =>
  ZRunCreate.parse({
    topology: { service: { replicas: 1 + (i % 4), cpus: 0.2, memoryMb: 128 } },
    workload:
      i % 3 === 0
        ? { endpoint: "cpu", loadgen: "wrk", connections: 16, durationSeconds: 10 }
        : { endpoint: "hostname", vus: 1 + (i % 8), durationSeconds: 10 },
  });

const summary = (i: number) => ({
  requests: 10_000 + i,
  errors: i % 50,
  latencyMs: { avg: 4, p50: 3, p90: 6, p95: 8 + (i % 7), p99: 15, max: 40 },
  rps: 1_000 + (i % 900),
  errorRate: (i % 50) / (10_000 + i),
});

async function main() {
  const db = createDb(getEnv().DATABASE_URL);
  const started = Date.now();
  const now = Date.now();
  const needle = `needle ${randomUUID().slice(0, 8)}`;
  const rows = [];
  const experiments = [];
  let needleId = "";
  let i = 0;
  while (i < RUNS) {
    const createdAt = (k: number) => new Date(now - (RUNS - k) * STEP_MS);
    // One experiment for every 40 runs, when its 6 runs fit.
    if (i % 40 === 20 && i + EXPERIMENT_RUNS <= RUNS) {
      const id = randomUUID();
      const name = `seed ${NAMES[i % NAMES.length]} ${i}`;
      const base = definition(i);
      experiments.push({
        id,
        name,
        definition: json(
          ZExperimentCreate.parse({
            name,
            base,
            variants: [
              { name: "one", patch: {} },
              { name: "two", patch: {} },
            ],
            repetitions: 3,
          }),
        ),
        variants: json([
          { name: "one", axes: {}, patch: {} },
          { name: "two", axes: {}, patch: {} },
        ]),
        repetitions: 3,
        settleSeconds: 5,
        plannedRuns: EXPERIMENT_RUNS,
        estimatedSeconds: 120,
        createdAt: createdAt(i),
      });
      for (let r = 0; r < EXPERIMENT_RUNS; r++, i++) {
        rows.push({
          id: randomUUID(),
          name: `${name} · ${r % 2 === 0 ? "one" : "two"}`,
          status: "succeeded",
          step: "done",
          topology: json(base.topology),
          workload: json(base.workload),
          faults: json([]),
          summary: json(summary(i)),
          experimentId: id,
          variant: r % 2,
          repetition: Math.floor(r / 2),
          createdAt: createdAt(i),
          finishedAt: createdAt(i),
        });
      }
      continue;
    }
    const def = definition(i);
    const id = randomUUID();
    const isNeedle = i === 17;
    if (isNeedle) needleId = id;
    const status = STATUSES[i % STATUSES.length]!;
    rows.push({
      id,
      name: isNeedle
        ? needle
        : `seed ${NAMES[i % NAMES.length]} · ${def.topology.service.replicas} replica${def.topology.service.replicas === 1 ? "" : "s"} #${i}`,
      status,
      step: status === "succeeded" ? "done" : "running",
      topology: json(def.topology),
      workload: json(def.workload),
      faults: json([]),
      ...(status === "succeeded" && { summary: json(summary(i)) }),
      createdAt: createdAt(i),
      finishedAt: createdAt(i),
    });
    i++;
  }
  await db.experiment.createMany({ data: experiments });
  for (let k = 0; k < rows.length; k += 1_000) await db.run.createMany({ data: rows.slice(k, k + 1_000) });
  const total = await db.run.count();
  await db.$disconnect();
  console.log(
    JSON.stringify({
      runs: rows.length,
      experiments: experiments.length,
      needle,
      needleId,
      oldest: rows[0]!.id,
      runsInDatabase: total,
      seconds: (Date.now() - started) / 1000,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
