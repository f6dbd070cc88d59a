import { randomUUID } from "node:crypto";
import { Prisma } from "@scalelab/db";
import { ZRunCreate, ZRunSummary } from "@scalelab/scenarios/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../routers/_app";
import type { Deps } from "../runtime";
import { COMPARE_POINTS, createRun, compare, readContainerSeconds, readSamples } from "./service";
import { liveRun, runContainerSeconds, runSnapshot, SNAPSHOT_POINTS, type TLiveEvent } from "./live";
import { runBody } from "../testing";
import { openServiceDeps } from "../testing-services";
import { createTrpcHandler } from "../trpc-http";
import { createRestHandler } from "../rest/handler";
import { openApiDocument } from "../rest/openapi";

// Real Postgres and Redis (DATABASE_URL, REDIS_URL); a queue of its own so that no worker takes the runs.
const API = "http://lab.test/api/v1";
const TRPC = "http://lab.test/api/trpc";
const prefix = `series-integration ${randomUUID().slice(0, 8)}`;
let deps: Deps;
let close: () => Promise<void>;
let rest: (req: Request) => Promise<Response>;
let trpc: (req: Request) => Promise<Response>;

const SECONDS = 3600;
/** The second of the spikes: requests, errors and p99 of the samples, CPU of one container, a figure. */
const SPIKE = 1234;
let longRun: string;
let shortRun: string;

async function insertRun(seconds: number): Promise<string> {
  const { id } = await createRun(deps, ZRunCreate.parse(runBody(2, `${prefix} ${seconds} s`)));
  await deps.queue.remove(id);
  await deps.db.runSample.createMany({
    data: Array.from({ length: seconds }, (_, t) => ({
      runId: id,
      t,
      requests: t === SPIKE ? 20_000 : 1000 + (t % 5),
      errors: t === SPIKE ? 70 : 0,
      latAvg: 2,
      latP50: 1,
      latP90: 3,
      latP95: 4,
      latP99: t === SPIKE ? 900 : 5,
      latMax: 10,
      backends: { "app-0": 500, "app-1": 500 },
    })),
  });
  await deps.db.containerSample.createMany({
    data: Array.from({ length: seconds }, (_, t) =>
      ["sl-x-app-0", "sl-x-lb"].map((container) => ({
        runId: id,
        t,
        container,
        role: container.endsWith("lb") ? "lb" : "app",
        cpuPct: container.endsWith("lb") && t === SPIKE ? 180 : 40,
        memBytes: 9_000_000n,
        throttledPeriods: 0,
        throttledMs: 0,
        netRxBps: 1e6,
        netTxBps: 2e6,
      })),
    ).flat(),
  });
  await deps.db.figureSample.createMany({
    data: Array.from({ length: seconds }, (_, t) => ({ runId: id, t, figures: { "pool.busy": t === SPIKE ? 64 : 4 } })),
  });
  return id;
}

beforeAll(async () => {
  ({ deps, close } = await openServiceDeps());
  rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }) });
  trpc = createTrpcHandler({ router: appRouter, createContext: () => ({ deps }) });
  longRun = await insertRun(SECONDS);
  shortRun = await insertRun(60);
}, 60_000);

afterAll(async () => {
  await deps.db.run.deleteMany({ where: { name: { startsWith: prefix } } });
  await close();
});

const getJson = async <T>(path: string): Promise<{ status: number; body: T }> => {
  const res = await rest(new Request(`${API}${path}`));
  return { status: res.status, body: (await res.json()) as T };
};

type Sample = { t: number; requests: number; errors: number; latencyMs: { p99: number } | null; imbalance?: number };

describe("?points= on a run's series", () => {
  it("GET /runs/{id}/samples without points is every second; with points=500, at most 500 keeping the spike", async () => {
    const full = await getJson<Sample[]>(`/runs/${longRun}/samples`);
    expect(full.status).toBe(200);
    expect(full.body).toHaveLength(SECONDS);

    const down = await getJson<Sample[]>(`/runs/${longRun}/samples?points=500`);
    expect(down.status).toBe(200);
    expect(down.body.length).toBeLessThanOrEqual(500);
    expect(down.body.length).toBeGreaterThan(250);
    expect(Math.max(...down.body.map((s) => s.requests))).toBe(20_000);
    expect(Math.min(...down.body.map((s) => s.requests))).toBe(1000);
    expect(Math.max(...down.body.map((s) => s.errors))).toBe(70);
    expect(Math.max(...down.body.map((s) => s.latencyMs?.p99 ?? 0))).toBe(900);
    // The imbalance of every second (1: even) survives as such.
    expect(new Set(down.body.map((s) => s.imbalance))).toEqual(new Set([1]));
    expect(down.body.map((s) => s.t)).toEqual([...down.body.map((s) => s.t)].sort((a, b) => a - b));
  });

  it("a run with fewer seconds than points is returned whole", async () => {
    const res = await getJson<Sample[]>(`/runs/${shortRun}/samples?points=100`);
    expect(res.body).toHaveLength(60);
  });

  it("GET /runs/{id}/containers and /figures take points per container and per figure", async () => {
    type Container = { t: number; container: string; cpuPct: number };
    const containers = await getJson<Container[]>(`/runs/${longRun}/containers?points=200`);
    expect(containers.status).toBe(200);
    for (const name of ["sl-x-app-0", "sl-x-lb"]) {
      const mine = containers.body.filter((c) => c.container === name);
      expect(mine.length).toBeGreaterThan(100);
      expect(mine.length).toBeLessThanOrEqual(200);
    }
    expect(Math.max(...containers.body.filter((c) => c.container === "sl-x-lb").map((c) => c.cpuPct))).toBe(180);

    const figures = await getJson<{ t: number; figures: Record<string, number> }[]>(`/runs/${longRun}/figures?points=100`);
    expect(figures.status).toBe(200);
    expect(figures.body.length).toBeLessThanOrEqual(100);
    expect(Math.max(...figures.body.map((f) => f.figures["pool.busy"]!))).toBe(64);
  });

  it("a points out of range or not a whole number is a 400 naming points and the range, over REST and tRPC", async () => {
    for (const bad of ["99", "10001", "1.5", "abc", "-5", "0x10"]) {
      for (const series of ["samples", "containers", "figures"]) {
        const res = await getJson<{ error: string; issues: { path: string; message: string }[] }>(
          `/runs/${longRun}/${series}?points=${bad}`,
        );
        expect(res.status, `${series}?points=${bad}`).toBe(400);
        expect(res.body.error).toBe("invalid_input");
        expect(res.body.issues).toContainEqual({ path: "points", message: "points must be a whole number between 100 and 10000" });
      }
    }
    const viaTrpc = await trpc(
      new Request(`${TRPC}/runs.samples?input=${encodeURIComponent(JSON.stringify({ id: longRun, points: 50 }))}`),
    );
    expect(viaTrpc.status).toBe(400);
    const { error } = (await viaTrpc.json()) as { error: { data: { issues: { path: string; message: string }[] } } };
    expect(error.data.issues).toContainEqual({ path: "points", message: "points must be a whole number between 100 and 10000" });
  });

  it("the OpenAPI document gives points as an optional integer of 100–10000 on the three series", () => {
    const doc = openApiDocument();
    for (const path of ["/runs/{id}/samples", "/runs/{id}/containers", "/runs/{id}/figures"]) {
      const op = (doc.paths![path] as { get: { parameters: { name: string; in: string; required?: boolean; schema: unknown }[] } }).get;
      const points = op.parameters.find((p) => p.name === "points");
      expect(points, path).toMatchObject({ in: "query", schema: { type: "integer", minimum: 100, maximum: 10000 } });
      expect(points?.required).not.toBe(true);
    }
  });
});

describe("the run page's and the compare's series of a 1 h run", () => {
  it("the live snapshot holds at most SNAPSHOT_POINTS per series, says how many seconds there were and keeps the spikes", async () => {
    const stop = new AbortController();
    const live = liveRun(deps, longRun, stop.signal);
    const first = (await live.next()).value as TLiveEvent | undefined;
    stop.abort();
    await live.return(undefined);
    if (first?.type !== "snapshot") throw new Error("the first event is not the snapshot");
    expect(first.seconds).toBe(SECONDS);
    expect(first.samples.length).toBeLessThanOrEqual(SNAPSHOT_POINTS);
    expect(Math.max(...first.samples.map((s) => s.requests))).toBe(20_000);
    expect(first.samples.every((s) => s.imbalance === 1)).toBe(true);
    expect(first.containers.length).toBeLessThanOrEqual(SNAPSHOT_POINTS);
    expect(Math.max(...first.containers.flatMap((s) => s.containers.map((c) => c.cpuPct)))).toBe(180);
    expect(first.cpuMedian).toEqual({ "sl-x-app-0": 40, "sl-x-lb": 40 });
    expect(first.figures.length).toBeLessThanOrEqual(SNAPSHOT_POINTS);
  });

  it("the run page's read of a finished run leaves its container readings for runs.containerSeconds, keeping their CPU medians", async () => {
    const stream = await runSnapshot(deps, longRun, { containersLater: true });
    // Not ended yet: the page needs them live, nothing is left out.
    expect(stream.containersLater).toBeUndefined();
    expect(stream.containers.length).toBeGreaterThan(0);
    const summary = ZRunSummary.parse({
      requests: 1000,
      rps: 1000,
      errors: 0,
      errorRate: 0,
      latencyMs: { avg: 2, p50: 1, p90: 3, p95: 4, p99: 5, max: 9 },
      durationSeconds: SECONDS,
    });
    await deps.db.run.update({ where: { id: longRun }, data: { status: "succeeded", summary } });
    try {
      const page = await runSnapshot(deps, longRun, { containersLater: true });
      expect(page.containersLater).toBe(true);
      expect(page.containers).toEqual([]);
      expect(page.cpuMedian).toEqual(stream.cpuMedian);
      expect(page.samples).toEqual(stream.samples);
      expect(await runContainerSeconds(deps, longRun)).toEqual(stream.containers);
      // The live stream's snapshot keeps them.
      expect((await runSnapshot(deps, longRun)).containers).toEqual(stream.containers);
    } finally {
      await deps.db.run.update({ where: { id: longRun }, data: { status: "queued", summary: Prisma.DbNull } });
    }
  });

  it("a compare holds at most COMPARE_POINTS samples of the long run and every second of the short one", async () => {
    const result = await compare(deps, [longRun, shortRun]);
    const [long, short] = result.samples;
    expect(long!.samples.length).toBeLessThanOrEqual(COMPARE_POINTS);
    expect(Math.max(...long!.samples.map((s) => s.requests))).toBe(20_000);
    expect(short!.samples).toHaveLength(60);
  });
});

describe("reading a run's seconds as one JSON array (readSamples, readContainerSeconds)", () => {
  it("gives what the rows read through Prisma give: every column, nulls of older rows left out, big memory exact", async () => {
    const id = await insertRun(3);
    // An older row: no per-second network, periods or throttled ms; and a memory reading past 2^32.
    await deps.db.containerSample.create({
      data: { runId: id, t: 3, container: "sl-x-app-0", role: "app", cpuPct: 12.345678901, memBytes: 6_442_450_944n, throttledPeriods: 2 },
    });
    await deps.db.runSample.create({ data: { runId: id, t: 3, requests: 7, errors: 1, errorKinds: { "502": 1 } } });
    const viaPrisma = await deps.db.containerSample.findMany({ where: { runId: id }, orderBy: [{ t: "asc" }, { container: "asc" }] });
    const seconds = await readContainerSeconds(deps, id);
    expect(seconds.map((s) => s.t)).toEqual([0, 1, 2, 3]);
    expect(seconds.flatMap((s) => s.containers)).toEqual(
      viaPrisma.map((r) => ({
        container: r.container,
        role: r.role,
        cpuPct: r.cpuPct,
        memBytes: Number(r.memBytes),
        throttledPeriods: r.throttledPeriods,
        ...(r.periods !== null && { periods: r.periods }),
        ...(r.throttledMs !== null && { throttledMs: r.throttledMs }),
        ...(r.netRxBps !== null && { netRxBps: r.netRxBps }),
        ...(r.netTxBps !== null && { netTxBps: r.netTxBps }),
      })),
    );
    expect(seconds[3]!.containers[0]).toEqual({
      container: "sl-x-app-0",
      role: "app",
      cpuPct: 12.345678901,
      memBytes: 6_442_450_944,
      throttledPeriods: 2,
    });
    const samples = await readSamples(deps, id);
    expect(samples.map((s) => s.t)).toEqual([0, 1, 2, 3]);
    expect(samples[0]).toEqual({
      t: 0,
      requests: 1000,
      errors: 0,
      latencyMs: { avg: 2, p50: 1, p90: 3, p95: 4, p99: 5, max: 10 },
      backends: { "app-0": 500, "app-1": 500 },
    });
    expect(samples[3]).toEqual({ t: 3, requests: 7, errors: 1, latencyMs: null, errorKinds: { "502": 1 } });
    expect(await readSamples(deps, randomUUID())).toEqual([]);
    expect(await readContainerSeconds(deps, randomUUID())).toEqual([]);
  });
});
