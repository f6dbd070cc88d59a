import { ensureImages } from "@scalelab/images";
import { cancelChannel, encodeCancelMessage, runChannel, runJob } from "@scalelab/scenarios/messages";
import { parseChannelMessage } from "@scalelab/scenarios/messages";
import { TRunCreateInput, TRunStep } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { sleep, PrepareImages } from "./pipeline/context";
import { useLabWorker, waitFor } from "./testing/lab";

/*
 * A cancel at any moment of any step ends the run within 10 s, tears down everything, and leaves
 * the worker free for the next run. The moments include the one that used to hang the worker for
 * good: 1.9 s into a 2 s warm-up.
 */
/** Image preparation as slow as a cold build (and as abortable), so a cancel can land in it. */
let slowImages = false;
const prepareImages: PrepareImages = async (d, names, opts) => {
  if (slowImages) await sleep(3_000, opts.signal!);
  return ensureImages(d, names, opts);
};
const ctx = useLabWorker("cancel", { prepareImages });

const body = (storage: boolean): TRunCreateInput => ({
  name: "integration: cancel",
  topology: { service: { replicas: 2, memoryMb: 128 }, ...(storage && { storage: { kind: "postgres", memoryMb: 256 } }) },
  workload: { endpoint: storage ? "products" : "hostname", arrivalRate: 100, durationSeconds: 5 },
});

const MOMENTS: [TRunStep, number, boolean][] = [
  ["queued", 0, false],
  ["preparing_images", 0, false],
  ["provisioning", 0, true],
  ["provisioning", 400, true],
  ["waiting_healthy", 0, false],
  ["warmup", 0, false],
  ["warmup", 1000, false],
  ["warmup", 1900, false],
  ["warmup", 2000, false],
  ["running", 0, false],
  ["running", 4800, false],
  ["running", 5300, false],
];

describe("cancel", () => {
  it.each(MOMENTS)("during %s, %i ms in (store: %s): ends within 10 s and leaves nothing", async (step, afterMs, storage) => {
    slowImages = step === "preparing_images";
    // The worker's own status messages say when a step begins, even one that lasts a few ms.
    const sub = ctx.lab.redis.duplicate();
    const id = await ctx.lab.createRun(body(storage), { enqueue: false });
    let seen: TRunStep | undefined;
    const entered = new Promise<void>((resolve) => {
      sub.on("message", (_ch, raw) => {
        const m = parseChannelMessage(raw);
        if (m?.type !== "status") return;
        seen = m.step as TRunStep;
        if (m.step === step || m.status !== "running") resolve();
      });
    });
    await sub.subscribe(runChannel(id));
    const job = runJob(id);
    await ctx.lab.queue.add(job.name, job.data, job.opts);
    if (step === "queued") seen = "queued";
    else await Promise.race([entered, waitFor(`step ${step}`, 120_000, async () => undefined)]);
    sub.disconnect();
    await new Promise((r) => setTimeout(r, afterMs));
    const asked = Date.now();
    await ctx.lab.db.run.update({ where: { id }, data: { cancelRequested: true } });
    await ctx.lab.redis.publish(cancelChannel(id), encodeCancelMessage(id));
    const run = await ctx.lab.finished(id, 10_000);
    console.log(`cancel during ${seen} +${afterMs} ms → ${run.status} at ${run.step} in ${Date.now() - asked} ms`);
    // A cancel that lands while the results are being stored may let the run finish instead.
    expect(
      run.status === "cancelled" || (run.status === "succeeded" && ["running", "collecting"].includes(step)),
      `${run.status} at ${run.step}`,
    ).toBe(true);
    expect(await ctx.lab.leftovers(id)).toEqual([]);
  });

  it("leaves the worker free: the next run succeeds", async () => {
    const id = await ctx.lab.createRun(body(false));
    const run = await ctx.lab.finished(id, 60_000);
    expect(run.status).toBe("succeeded");
  });
});
