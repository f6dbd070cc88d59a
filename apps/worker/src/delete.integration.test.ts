import { randomUUID } from "node:crypto";
import { cancelChannel, encodeCancelMessage, runJob } from "@scalelab/scenarios/messages";
import { TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { useLabWorker, waitFor } from "./testing/lab";

/*
 * A run deleted while the worker holds it: DELETE /runs/{id} marks it (delete_requested) and
 * cancels it; the worker tears it down, then deletes it with its samples and events. A row gone
 * by other means (a job whose run was deleted, a row deleted outright mid-run) never crashes the
 * worker or leaves a container, and the next run still runs.
 */
const ctx = useLabWorker("delete");

const body = (seconds: number): TRunCreateInput => ({
  name: `integration: delete ${randomUUID().slice(0, 6)}`,
  topology: { service: { replicas: 1, memoryMb: 128 } },
  workload: { endpoint: "hostname", arrivalRate: 100, durationSeconds: seconds },
});

async function untilLoadRuns(id: string) {
  await waitFor(`run ${id} to send load`, 120_000, async () => {
    const [run, samples] = await Promise.all([
      ctx.lab.db.run.findUnique({ where: { id }, select: { step: true } }),
      ctx.lab.db.runSample.count({ where: { runId: id } }),
    ]);
    return run?.step === "running" && samples >= 2 ? true : undefined;
  });
}

const gone = (id: string, timeoutMs: number) =>
  waitFor(`run ${id} to be deleted`, timeoutMs, async () => ((await ctx.lab.db.run.count({ where: { id } })) === 0 ? true : undefined));

async function nextRunSucceeds() {
  const id = await ctx.lab.createRun(body(5));
  const run = await ctx.lab.finished(id, 120_000);
  expect(run.status).toBe("succeeded");
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  await ctx.lab.db.run.delete({ where: { id } });
}

describe("deleting a run the worker holds", () => {
  it("asked during the load (as DELETE /runs/{id} asks): torn down, then deleted with its samples and events, within 15 s", async () => {
    const id = await ctx.lab.createRun(body(30));
    await untilLoadRuns(id);
    expect(await ctx.lab.leftovers(id)).not.toEqual([]);
    const asked = Date.now();
    // runs/service.ts deleteRun for a running run: mark, ask to cancel, leave the row to the worker.
    await ctx.lab.db.run.update({ where: { id }, data: { deleteRequested: true, cancelRequested: true } });
    await ctx.lab.redis.publish(cancelChannel(id), encodeCancelMessage(id));
    await gone(id, 15_000);
    console.log(`deleted during the load: row gone ${Date.now() - asked} ms after the ask`);
    expect(await ctx.lab.leftovers(id)).toEqual([]);
    expect(await ctx.lab.db.runSample.count({ where: { runId: id } })).toBe(0);
    expect(await ctx.lab.db.runEvent.count({ where: { runId: id } })).toBe(0);
    await nextRunSucceeds();
  });

  it("a job whose run was deleted before it started is skipped", async () => {
    const id = randomUUID();
    const job = runJob(id);
    await ctx.lab.queue.add(job.name, job.data, job.opts);
    await waitFor(`job ${id} to be taken`, 30_000, async () => ((await ctx.lab.queue.getJob(id))?.finishedOn ? true : undefined));
    const done = await ctx.lab.queue.getJob(id);
    expect(done?.failedReason).toBeUndefined();
    await nextRunSucceeds();
  });

  it("a row deleted outright mid-run: the run stops, nothing is left, the worker takes the next run", async () => {
    const id = await ctx.lab.createRun(body(30));
    await untilLoadRuns(id);
    await ctx.lab.db.run.delete({ where: { id } });
    // Found by the cancel poll (every 5 s), then torn down.
    await waitFor(`run ${id}'s containers to go`, 30_000, async () => ((await ctx.lab.leftovers(id)).length === 0 ? true : undefined));
    expect(await ctx.lab.db.runSample.count({ where: { runId: id } })).toBe(0);
    await nextRunSucceeds();
  });
});
