import type { Prisma } from "@scalelab/db";
import { queuedSeconds, queueRefusal, type TQuotas } from "@scalelab/scenarios/experiments";
import { getEnv } from "~/env";
import { quotaExceeded } from "../errors";
import type { Deps } from "../runtime";

/** The lab's quotas: the deps' own (tests), else the web's environment. */
export function quotasOf(deps: Deps): TQuotas {
  if (deps.quotas) return deps.quotas;
  const env = getEnv();
  return { maxExperimentSeconds: env.SCALELAB_MAX_EXPERIMENT_HOURS * 3600, maxQueueSeconds: env.SCALELAB_MAX_QUEUE_HOURS * 3600 };
}

type Tx = Prisma.TransactionClient;

/** The creations' transactions wait their turn at the queue's lock: longer than Prisma's 2 s and 5 s defaults, for a busy 2-core host. */
export const TX_OPTIONS = { maxWait: 10_000, timeout: 20_000 };

/** The work the queue holds: runs queued or running that are not being cancelled or deleted, with their experiment's settle pause. */
export async function readQueue(tx: Tx | Deps["db"], now = Date.now()): Promise<{ seconds: number; runs: number }> {
  const rows = await tx.$queryRaw<{ status: "queued" | "running"; started_at: Date | null; load: number | null; settle: number | null }[]>`
    SELECT r."status", r."started_at", (r."workload"->>'durationSeconds')::float8 AS "load", e."settle_seconds" AS "settle"
    FROM "runs" r LEFT JOIN "experiments" e ON e."id" = r."experiment_id"
    WHERE r."status" IN ('queued', 'running') AND NOT r."cancel_requested" AND NOT r."delete_requested"`;
  const seconds = queuedSeconds(
    rows.map((r) => ({
      status: r.status,
      loadSeconds: r.load ?? 30,
      settleSeconds: r.settle ?? 0,
      startedAtMs: r.started_at?.getTime() ?? null,
    })),
    now,
  );
  return { seconds, runs: rows.length };
}

/**
 * Inside the transaction that inserts the new work: waits for any other creation to commit, then
 * throws the queue's refusal (429, or 422 when the work could never fit) if the work does not fit.
 */
export async function admitToQueue(tx: Tx, quotas: TQuotas, work: { seconds: number; what: string; path?: string }): Promise<void> {
  // One constant key: creations that add to the queue take it in turn, so two never both fit into the same room.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(731717)`;
  const refusal = queueRefusal(await readQueue(tx), work, quotas);
  if (refusal) throw quotaExceeded(refusal);
}
