import { Db } from "@scalelab/db";
import { Logger } from "./log";

/**
 * Deletes a run whose delete was asked while the worker held it (web runs/service.ts deleteRun),
 * once it has ended and its containers are gone. The web sets `delete_requested` before it reads
 * the status, the worker records the end status before it reads the flag: one of them deletes it.
 */
export async function deleteIfAsked(db: Db, runId: string, log: Logger): Promise<boolean> {
  const { count } = await db.run.deleteMany({ where: { id: runId, deleteRequested: true, status: { notIn: ["queued", "running"] } } });
  if (count > 0) log.info("deleted the run as asked, after its teardown", { runId });
  return count > 0;
}
