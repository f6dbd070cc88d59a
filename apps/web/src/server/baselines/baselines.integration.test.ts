import { randomUUID } from "node:crypto";
import { ZRunCreate, type TRunSummary } from "@scalelab/scenarios/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../routers/_app";
import type { Deps } from "../runtime";
import { createRun, deleteRun, getRun } from "../runs/service";
import { createExperiment, getExperiment } from "../experiments/service";
import { openServiceDeps } from "../testing-services";
import { markExperimentBaseline, markRunBaseline } from "./service";
import { createTrpcHandler } from "../trpc-http";
import { createRestHandler } from "../rest/handler";

/*
 * Baselines against real Postgres and Redis (no worker: the runs' ends are written as the worker
 * writes them, status and summary), through REST and tRPC: marking, the baseline recorded at
 * creation, the regression check on read, unmarking, a deleted baseline, and the history.
 */
const API = "http://lab.test/api/v1";
const prefix = `baselines ${randomUUID().slice(0, 8)}`;
let deps: Deps;
let close: () => Promise<void>;
let rest: (req: Request) => Promise<Response>;
let trpc: (req: Request) => Promise<Response>;

const send = (method: string, path: string) => rest(new Request(`${API}${path}`, { method }));
const runOf = (name: string | undefined) =>
  ZRunCreate.parse({
    ...(name !== undefined && { name }),
    topology: { service: { replicas: 1, memoryMb: 64 } },
    workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 },
    regression: { worseBy: 20 },
  });
const summary = (rps: number, p95: number): TRunSummary => ({
  requests: rps * 5,
  rps,
  errors: 0,
  errorRate: 0,
  latencyMs: { avg: p95 / 2, p50: p95 / 2, p90: p95, p95, p99: p95, max: p95 },
});
const succeed = (id: string, rps: number, p95: number) =>
  deps.db.run.update({ where: { id }, data: { status: "succeeded", step: "done", summary: summary(rps, p95), finishedAt: new Date() } });

beforeAll(async () => {
  ({ deps, close } = await openServiceDeps());
  rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }) });
  trpc = createTrpcHandler({ router: appRouter, createContext: () => ({ deps }) });
});

afterAll(async () => {
  await deps.db.experiment.deleteMany({ where: { name: { startsWith: prefix } } });
  await deps.db.run.deleteMany({ where: { name: { startsWith: prefix } } });
  await close();
});

describe("a run's baseline", () => {
  it("is marked by PUT, recorded by the next run of the name when it is created, and its check reads the summaries", async () => {
    const name = `${prefix} run`;
    const base = await createRun(deps, runOf(name));
    // Not succeeded yet: a 409 with a sentence.
    const early = await send("PUT", `/runs/${base.id}/baseline`);
    expect(early.status).toBe(409);
    expect(((await early.json()) as { message: string }).message).toBe(
      `run ${base.id} is queued: only a run that succeeded can be a baseline`,
    );
    await succeed(base.id, 1000, 20);
    const marked = await send("PUT", `/runs/${base.id}/baseline`);
    expect(marked.status).toBe(200);
    expect(await marked.json()).toEqual({ kind: "run", id: base.id, name, baseline: true, replaced: null });
    expect((await getRun(deps, base.id)).markedBaseline).toBe(true);

    const slower = await createRun(deps, runOf(name));
    expect((await getRun(deps, slower.id)).regression).toMatchObject({
      baselineId: base.id,
      verdict: "cannot_tell",
      reason: "the run has not ended yet",
    });
    await succeed(slower.id, 500, 45);
    const view = await getRun(deps, slower.id);
    expect(view.regression).toMatchObject({ baselineId: base.id, verdict: "regressed", worseBy: 20, p: 0.05, matchedBy: null });
    expect(view.regression!.results.map((r) => [r.metric, r.baselineFigure, r.figure, r.regressed])).toEqual([
      ["rps", 1000, 500, true],
      ["p95", 20, 45, true],
    ]);
    expect(view.regression!.results[0]!.reason).toMatch(/one run cannot tell noise from a change/);

    // The same through tRPC's runs.get.
    const res = await trpc(new Request(`http://lab.test/api/trpc/runs.get?input=${encodeURIComponent(JSON.stringify({ id: slower.id }))}`));
    expect(((await res.json()) as { result: { data: { regression: { verdict: string } } } }).result.data.regression.verdict).toBe(
      "regressed",
    );

    // Marking another replaces it; the run created before keeps the baseline it recorded.
    const again = await send("PUT", `/runs/${slower.id}/baseline`);
    expect(await again.json()).toMatchObject({ baseline: true, replaced: base.id });
    expect((await getRun(deps, slower.id)).regression!.baselineId).toBe(base.id);
    expect((await getRun(deps, base.id)).markedBaseline).toBe(false);
    const same = await createRun(deps, runOf(name));
    await succeed(same.id, 510, 44);
    expect((await getRun(deps, same.id)).regression).toMatchObject({ baselineId: slower.id, verdict: "passed" });

    // History: oldest first, the baseline marked, each verdict.
    const history = await send("GET", `/history?name=${encodeURIComponent(name)}&kind=run`);
    expect(history.status).toBe(200);
    const h = (await history.json()) as {
      baselineId: string;
      points: { id: string; baseline: boolean; verdict: string | null; rps: number }[];
    };
    expect(h.baselineId).toBe(slower.id);
    expect(h.points.map((p) => [p.id, p.baseline, p.verdict, p.rps])).toEqual([
      [base.id, false, null, 1000],
      [slower.id, true, "regressed", 500],
      [same.id, false, "passed", 510],
    ]);

    // Unmarked: a new run has no baseline; the ones before keep theirs.
    const unmarked = await send("DELETE", `/runs/${slower.id}/baseline`);
    expect(await unmarked.json()).toMatchObject({ baseline: false });
    const none = await createRun(deps, runOf(name));
    expect((await getRun(deps, none.id)).regression).toBeNull();

    // The baseline deleted: the check says so.
    await deps.db.run.update({ where: { id: slower.id }, data: { status: "succeeded" } });
    await deleteRun(deps, slower.id);
    expect((await getRun(deps, same.id)).regression).toMatchObject({
      verdict: "cannot_tell",
      reason: `the baseline run ${slower.id} was deleted`,
      results: [],
    });
  });

  it("an unnamed run is a 422 naming name; an unknown one a 404; a bad history query a 400 naming the field", async () => {
    const unnamed = await createRun(deps, runOf(undefined));
    await succeed(unnamed.id, 100, 5);
    const res = await send("PUT", `/runs/${unnamed.id}/baseline`);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: "unprocessable", issues: [{ path: "name" }] });
    await deps.db.run.delete({ where: { id: unnamed.id } });
    expect((await send("PUT", `/runs/${randomUUID()}/baseline`)).status).toBe(404);
    const bad = await send("GET", `/history?name=x&kind=job`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ issues: [{ path: "kind", message: "kind must be one of: run, experiment" }] });
    const noName = await send("GET", `/history?kind=run`);
    expect(await noName.json()).toMatchObject({ issues: [{ path: "name" }] });
  });
});

describe("a dead service against the baseline", () => {
  it("a run at 0 req/s (k6 says p95 0 then), or one that failed, regressed (it does not pass as cannot_tell)", async () => {
    const name = `${prefix} dead`;
    const base = await createRun(deps, runOf(name));
    await succeed(base.id, 1000, 20);
    expect((await send("PUT", `/runs/${base.id}/baseline`)).status).toBe(200);
    const silent = await createRun(deps, runOf(name));
    await deps.db.run.update({
      where: { id: silent.id },
      data: {
        status: "succeeded",
        step: "done",
        finishedAt: new Date(),
        summary: { requests: 0, rps: 0, errors: 0, errorRate: 0, latencyMs: { avg: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 } },
      },
    });
    const view = await getRun(deps, silent.id);
    expect(view.regression).toMatchObject({ baselineId: base.id, verdict: "regressed" });
    expect(view.regression!.results.map((r) => [r.metric, r.ratio, r.regressed])).toEqual([
      ["rps", 0, true],
      ["p95", null, true],
    ]);
    const failed = await createRun(deps, runOf(name));
    await deps.db.run.update({ where: { id: failed.id }, data: { status: "failed", step: "done", finishedAt: new Date() } });
    const f = await getRun(deps, failed.id);
    expect(f.regression).toMatchObject({ verdict: "regressed" });
    expect(f.regression!.results[0]!.reason).toMatch(/^regressed: 1 run\(s\) failed where the baseline had rps 1000 req\/s/);
  });
});

describe("marking while it is deleted", () => {
  /**
   * The delete is made in a transaction left open while the mark goes on, then committed: the
   * mark's checks before its transaction still see the row; inside, its FOR UPDATE waits for the
   * delete and then finds nothing (404). Without the lock the mark went through and left a
   * baseline row pointing at the deleted id.
   */
  const deleteDuring = async (
    remove: (tx: Parameters<Parameters<Deps["db"]["$transaction"]>[0]>[0]) => Promise<unknown>,
    markIt: () => Promise<unknown>,
  ) => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let removed!: () => void;
    const done = new Promise<void>((r) => (removed = r));
    const deleting = deps.db.$transaction(
      async (tx) => {
        await remove(tx);
        removed();
        await gate;
      },
      { timeout: 15_000 },
    );
    await done;
    const marking = markIt().then(
      () => "marked",
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 500));
    release();
    await deleting;
    return marking;
  };

  it("a run: 404, and no baseline row left for the deleted id", async () => {
    const name = `${prefix} race run`;
    const run = await createRun(deps, runOf(name));
    await succeed(run.id, 1000, 20);
    const outcome = await deleteDuring(
      (tx) => tx.run.delete({ where: { id: run.id } }),
      () => markRunBaseline(deps, run.id),
    );
    expect(await deps.db.baseline.count({ where: { targetId: run.id } })).toBe(0);
    expect(outcome).toMatchObject({ kind: "not_found" });
  });

  it("an experiment: 404, and no baseline row left for the deleted id", async () => {
    const { ZExperimentCreate } = await import("@scalelab/scenarios/experiments");
    const e = await createExperiment(
      deps,
      ZExperimentCreate.parse({
        name: `${prefix} race experiment`,
        base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 } },
        variants: [{ name: "a", patch: {} }],
        repetitions: 1,
        settleSeconds: 0,
      }),
    );
    const [r] = await deps.db.run.findMany({ where: { experimentId: e.id } });
    await succeed(r!.id, 1000, 20);
    await deps.db.run.update({ where: { id: r!.id }, data: { startedAt: new Date() } });
    const outcome = await deleteDuring(
      (tx) => tx.experiment.delete({ where: { id: e.id } }),
      () => markExperimentBaseline(deps, e.id),
    );
    expect(await deps.db.baseline.count({ where: { targetId: e.id } })).toBe(0);
    expect(outcome).toMatchObject({ kind: "not_found" });
  });
});

describe("an experiment's baseline", () => {
  it("is refused until every run succeeded (409), then recorded by the next experiment of the name, compared variant by variant", async () => {
    const name = `${prefix} experiment`;
    const input = {
      name,
      base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 } },
      variants: [
        { name: "a", patch: {} },
        { name: "b", patch: { workload: { vus: 2 } } },
      ],
      repetitions: 2,
      settleSeconds: 0,
    };
    const { ZExperimentCreate } = await import("@scalelab/scenarios/experiments");
    const base = await createExperiment(deps, ZExperimentCreate.parse(input));
    const early = await send("PUT", `/experiments/${base.id}/baseline`);
    expect(early.status).toBe(409);
    const finish = async (id: string, rps: (variant: number, repetition: number) => number) => {
      const runs = await deps.db.run.findMany({ where: { experimentId: id } });
      for (const r of runs) {
        const v = rps(r.variant!, r.repetition!);
        await deps.db.run.update({
          where: { id: r.id },
          data: { status: "succeeded", step: "done", summary: summary(v, 10000 / v), startedAt: new Date(), finishedAt: new Date() },
        });
      }
    };
    await finish(base.id, (v, r) => (v === 0 ? 1000 : 2000) + r * 10);
    expect((await send("PUT", `/experiments/${base.id}/baseline`)).status).toBe(200);
    const next = await createExperiment(deps, ZExperimentCreate.parse(input));
    await finish(next.id, (v, r) => (v === 0 ? 1000 : 1000) + r * 10);
    const view = await getExperiment(deps, next.id);
    expect(view.regression).toMatchObject({ baselineId: base.id, verdict: "regressed", matchedBy: "name" });
    expect(view.regression!.results.filter((r) => r.regressed).map((r) => [r.variant, r.metric])).toEqual([
      ["b", "rps"],
      ["b", "p95"],
    ]);
    const b = view.regression!.results.find((r) => r.variant === "b" && r.metric === "rps")!;
    expect(b.pValue!).toBeLessThan(0.05);
    expect(b.ciHigh!).toBeLessThan(1);
    const h = (await (await send("GET", `/history?name=${encodeURIComponent(name)}&kind=experiment`)).json()) as {
      points: { baseline: boolean; verdict: string | null; variants: { variant: string; rps: number; rpsCi: unknown }[] }[];
    };
    expect(h.points.map((p) => [p.baseline, p.verdict])).toEqual([
      [true, null],
      [false, "regressed"],
    ]);
    expect(h.points[1]!.variants.map((v) => [v.variant, v.rps])).toEqual([
      ["a", 1005],
      ["b", 1005],
    ]);
    expect(h.points[1]!.variants[0]!.rpsCi).toEqual({ low: expect.any(Number), high: expect.any(Number) });
  });
});
