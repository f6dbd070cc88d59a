import { LABELS } from "@scalelab/scenarios/plan";
import { ZRunSummary, TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { useLabWorker, waitFor } from "./testing/lab";

/*
 * Per-container resources for real, through the queue and the worker, against the real Docker
 * engine, Postgres and Redis: CPU with throttling, memory and network in/out per second, and a
 * replica stopped and started by hand during the load.
 */
const ctx = useLabWorker("container-resources");

const run = (durationSeconds: number, vus: number, endpoint: "hostname" | "cpu" = "hostname"): TRunCreateInput => ({
  name: `container resources ${endpoint} ${durationSeconds} s`,
  topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 2, cpus: 0.2, memoryMb: 64 } },
  workload: { endpoint, vus, durationSeconds, loadgenCpus: 1 },
});

async function rowsOf(runId: string) {
  return ctx.lab.db.containerSample.findMany({ where: { runId }, orderBy: [{ t: "asc" }, { container: "asc" }] });
}
type Row = Awaited<ReturnType<typeof rowsOf>>[number];

const describeRows = (rows: Row[]) =>
  rows.map(
    (r) =>
      `t=${r.t} cpu ${r.cpuPct} % throttled ${r.throttledMs} ms, mem ${Number(r.memBytes)} B, in ${r.netRxBps} B/s, out ${r.netTxBps} B/s`,
  );

async function succeeded(id: string) {
  const row = await ctx.lab.finished(id);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
  expect(row.status).toBe("succeeded");
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  return { row, summary: ZRunSummary.parse(row.summary) };
}

describe("per-container resources", () => {
  it("records network in and out of the balancer and a replica, and a replica at 0.2 CPU under load is throttled", async () => {
    // CPU work per request: the replicas, not the balancer or k6, are the bottleneck.
    const id = await ctx.lab.createRun(run(8, 8, "cpu"));
    const { summary } = await succeeded(id);
    const rows = await rowsOf(id);
    const lastT = Math.max(...rows.map((r) => r.t));
    // The seconds inside the load: the first and the last can be partly before or after it.
    const during = (pick: (r: Row) => boolean) => rows.filter((r) => pick(r) && r.t >= 1 && r.t < lastT);
    const lb = during((r) => r.role === "lb");
    const app = during((r) => r.container.endsWith("-app-0"));
    console.log(`balancer:\n  ${describeRows(lb).join("\n  ")}\nreplica app-0:\n  ${describeRows(app).join("\n  ")}`);
    console.log(`summary.containers: ${JSON.stringify(summary.containers)}`);
    expect(lb.length).toBeGreaterThanOrEqual(4);
    expect(app.length).toBeGreaterThanOrEqual(4);
    for (const r of [...lb, ...app]) {
      expect(r.netRxBps, `${r.container} t=${r.t}`).toBeGreaterThan(0);
      expect(r.netTxBps, `${r.container} t=${r.t}`).toBeGreaterThan(0);
      expect(Number(r.memBytes)).toBeGreaterThan(0);
    }
    // Every request and answer crosses the balancer twice (client side and replica side), each replica once.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    expect(median(lb.map((r) => r.netRxBps!))).toBeGreaterThan(median(app.map((r) => r.netRxBps!)));
    // Pinned at its 0.2 CPU limit: throttled in most seconds.
    expect(app.filter((r) => r.throttledMs! > 0).length).toBeGreaterThanOrEqual(app.length - 1);
    expect(app.every((r) => r.cpuPct <= 25)).toBe(true);

    expect(summary.containers?.app).toMatchObject({ containers: 2, pctOfLimit: expect.any(Number) });
    expect(summary.containers?.app?.throttledMsPerSecond).toBeGreaterThan(0);
    expect(summary.containers?.app?.medianNetRxBps).toBeGreaterThan(0);
    expect(summary.containers?.app?.medianNetTxBps).toBeGreaterThan(0);
    expect(summary.containers?.app?.maxMemBytes).toBeGreaterThan(0);
    expect(summary.containers?.lb?.medianNetTxBps).toBeGreaterThan(0);
  });

  it("a replica stopped and started during the load has no rows while it is down and rows again after its start", async () => {
    const id = await ctx.lab.createRun(run(16, 4));
    const loadStart = await waitFor("the load to start", 240_000, async () => {
      const r = await ctx.lab.db.run.findUniqueOrThrow({ where: { id } });
      if (r.finishedAt) throw new Error(`the run ended before its load started: ${r.status} ${r.error}`);
      return r.loadStartedAt ?? undefined;
    });
    const [target] = await ctx.docker.listContainers({ filters: { label: [`${LABELS.run}=${id}`, `${LABELS.role}=app`] } });
    expect(target).toBeDefined();
    // The run's containers reach only each other: its network has no route out.
    const network = await ctx.docker.getNetwork(`sl-run-${id}`).inspect();
    expect(network).toMatchObject({ Internal: true, Labels: { [LABELS.run]: id } });
    const name = target!.Names[0]!.replace(/^\//, "");
    const container = ctx.docker.getContainer(target!.Id);
    const second = () => (Date.now() - loadStart.getTime()) / 1000;

    await waitFor("rows of the replica", 20_000, async () =>
      (await ctx.lab.db.containerSample.count({ where: { runId: id, container: name } })) >= 2 ? true : undefined,
    );
    await container.stop({ t: 1 });
    const stoppedAt = second();
    await new Promise((r) => setTimeout(r, 4_000));
    const startingAt = second();
    await container.start();
    await succeeded(id);

    const rows = (await rowsOf(id)).filter((r) => r.container === name);
    console.log(
      `${name}: stopped at ${stoppedAt.toFixed(1)} s, started at ${startingAt.toFixed(1)} s; rows at t = ${rows.map((r) => r.t).join(", ")}`,
    );
    console.log(describeRows(rows).join("\n"));
    // A row at t holds the reading taken in [t, t + 1) s of the load (the follower's tick at t + 1 s writes it).
    expect(rows.filter((r) => r.t < stoppedAt).length).toBeGreaterThanOrEqual(2);
    expect(rows.filter((r) => r.t > stoppedAt + 1 && r.t + 1 < startingAt)).toEqual([]);
    const after = rows.filter((r) => r.t > startingAt + 1);
    expect(after.length).toBeGreaterThanOrEqual(3);
    for (const r of after) {
      expect(r.cpuPct).toBeGreaterThanOrEqual(0);
      expect(r.netRxBps).toBeGreaterThanOrEqual(0);
      expect(r.netTxBps).toBeGreaterThanOrEqual(0);
    }
    // It takes requests again once nginx retries it.
    expect(after.some((r) => r.netRxBps! > 0)).toBe(true);
  });

  it("a paused replica reads 0 % CPU and no throttling while paused, and its figures come back after unpause", async () => {
    const id = await ctx.lab.createRun(run(12, 4, "cpu"));
    const loadStart = await waitFor("the load to start", 240_000, async () => {
      const r = await ctx.lab.db.run.findUniqueOrThrow({ where: { id } });
      if (r.finishedAt) throw new Error(`the run ended before its load started: ${r.status} ${r.error}`);
      return r.loadStartedAt ?? undefined;
    });
    const [target] = await ctx.docker.listContainers({ filters: { label: [`${LABELS.run}=${id}`, `${LABELS.role}=app`] } });
    const name = target!.Names[0]!.replace(/^\//, "");
    const container = ctx.docker.getContainer(target!.Id);
    const second = () => (Date.now() - loadStart.getTime()) / 1000;
    await waitFor("rows of the replica", 20_000, async () =>
      (await ctx.lab.db.containerSample.count({ where: { runId: id, container: name } })) >= 2 ? true : undefined,
    );
    await container.pause();
    const pausedAt = second();
    await new Promise((r) => setTimeout(r, 4_000));
    const unpausingAt = second();
    await container.unpause();
    await succeeded(id);

    const rows = (await rowsOf(id)).filter((r) => r.container === name);
    console.log(`${name}: paused at ${pausedAt.toFixed(1)} s, unpaused at ${unpausingAt.toFixed(1)} s`);
    console.log(describeRows(rows).join("\n"));
    // Docker's stream goes on while a container is paused, with its counters frozen. A row's second
    // is counted on the worker's clock from the load's start, which may run a few hundred ms off
    // this test's: the seconds next to the pause and the unpause are left out.
    const paused = rows.filter((r) => r.t > pausedAt + 1 && r.t + 2 <= unpausingAt);
    expect(paused.length).toBeGreaterThanOrEqual(1);
    for (const r of paused) expect(r).toMatchObject({ cpuPct: 0, throttledPeriods: 0, throttledMs: 0 });
    expect(rows.filter((r) => r.t > unpausingAt + 1).some((r) => r.cpuPct > 5)).toBe(true);
  });
});
