import { randomUUID } from "node:crypto";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { createExperiment, deleteExperiment, listExperiments } from "../experiments/service";
import type { Deps } from "../runtime";
import { openServiceDeps } from "../testing-services";
import { ZExperimentListInput, ZRunListInput } from "./paging";
import { deleteRun, json, listRuns, rerun } from "./service";

/*
 * Thousands of runs in real Postgres: keyset pages reach the oldest, each run once, in order; the
 * filters and the search; delete with everything that hangs off a run; re-run.
 */
const N = 3_000;
const tag = randomUUID().slice(0, 8);
let deps: Deps;
let close: () => Promise<void>;
const ids: string[] = [];

const STATUSES = ["succeeded", "failed", "cancelled", "interrupted"] as const;
const k6 = ZRunCreate.parse({
  topology: { service: { replicas: 1, memoryMb: 64 } },
  workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 },
});
const wrk = ZRunCreate.parse({
  topology: { service: { replicas: 1, memoryMb: 64 } },
  workload: { endpoint: "hostname", loadgen: "wrk", connections: 4, durationSeconds: 5 },
});
const base = new Date("2026-01-01T00:00:00.000Z").getTime();
/** Three runs per millisecond-exact instant, so the id must break ties; a minute apart. */
const createdAtOf = (i: number) => new Date(base + Math.floor(i / 3) * 60_000);

const list = (input: Record<string, unknown>) => listRuns(deps, ZRunListInput.parse(input));

/** Every page of a listing, following nextCursor to the end. */
async function pages(input: Record<string, unknown>): Promise<{ ids: string[]; pages: number }> {
  const out: string[] = [];
  let cursor: string | null = null;
  let n = 0;
  do {
    const page = await list({ ...input, ...(cursor && { cursor }) });
    out.push(...page.items.map((r) => r.id));
    cursor = page.nextCursor;
    n++;
  } while (cursor && n < 10_000);
  return { ids: out, pages: n };
}

beforeAll(async () => {
  ({ deps, close } = await openServiceDeps());
  const rows = Array.from({ length: N }, (_, i) => {
    const def = i % 2 === 0 ? k6 : wrk;
    const id = randomUUID();
    ids.push(id);
    return {
      id,
      name: i === 1234 ? `Needle ${tag} 50% off` : `${tag} run ${i}`,
      status: STATUSES[i % STATUSES.length]!,
      step: "done",
      topology: json(def.topology),
      workload: json(def.workload),
      faults: json([]),
      createdAt: createdAtOf(i),
    };
  });
  for (let i = 0; i < rows.length; i += 1_000) await deps.db.run.createMany({ data: rows.slice(i, i + 1_000) });
}, 60_000);

afterAll(async () => {
  await deps.db.run.deleteMany({ where: { OR: [{ id: { in: ids } }, { name: { contains: tag } }] } });
  await deps.db.experiment.deleteMany({ where: { name: { contains: tag } } });
  await close();
});

describe("GET /runs paging (listRuns)", () => {
  it(`reaches the oldest of ${N} runs, each once, newest first with ties broken by id`, async () => {
    const all = await pages({ q: tag, limit: 100 });
    expect(all.pages).toBe(N / 100);
    const expected = ids
      .map((id, i) => ({ id, at: createdAtOf(i).getTime() }))
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
      .map((r) => r.id);
    expect(all.ids).toEqual(expected);
    expect(all.ids.at(-1)).toBe(expected.at(-1));
  });

  it(`oldest first reaches the newest of ${N} runs, each once, in order with ties broken by id`, async () => {
    const all = await pages({ q: tag, limit: 100, order: "oldest" });
    expect(all.pages).toBe(N / 100);
    const expected = ids
      .map((id, i) => ({ id, at: createdAtOf(i).getTime() }))
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
      .map((r) => r.id);
    expect(all.ids).toEqual(expected);
    // The first run created is the first row of the first page, the last created the last row.
    expect(all.ids[0]).toBe(expected[0]);
    expect((await pages({ q: tag, limit: 100 })).ids).toEqual([...expected].reverse());
  });

  it("oldest first, a filter and a date range page the same way", async () => {
    const newest = await pages({ q: tag, status: ["failed"], from: "2026-01-01T01:00:00Z", limit: 50 });
    const oldest = await pages({ q: tag, status: ["failed"], from: "2026-01-01T01:00:00Z", limit: 50, order: "oldest" });
    expect(oldest.ids.length).toBeGreaterThan(100);
    expect(oldest.ids).toEqual([...newest.ids].reverse());
  });

  it("a cursor of one order is refused with the other, naming cursor", async () => {
    const first = await list({ q: tag, limit: 10, order: "oldest" });
    expect(first.nextCursor).not.toBeNull();
    const r = ZRunListInput.safeParse({ q: tag, limit: 10, cursor: first.nextCursor });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path)).toEqual([["cursor"]]);
    const second = await list({ q: tag, limit: 10, order: "oldest", cursor: first.nextCursor });
    const expected = ids
      .slice(0, N)
      .map((id, i) => ({ id, at: createdAtOf(i).getTime() }))
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
      .map((x) => x.id);
    expect([...first.items, ...second.items].map((x) => x.id)).toEqual(expected.slice(0, 20));
  });

  it("pages of 500 without a filter reach every run in the database", async () => {
    const all = await pages({ limit: 500 });
    expect(new Set(all.ids).size).toBe(all.ids.length);
    expect(all.ids.length).toBe(await deps.db.run.count({ where: { deleteRequested: false } }));
    expect(all.ids).toEqual(expect.arrayContaining(ids));
  });

  it("a run inserted between two pages neither repeats nor shifts the next page", async () => {
    const first = await list({ q: tag, limit: 10 });
    const newer = randomUUID();
    await deps.db.run.create({
      data: { id: newer, name: `${tag} newer`, status: "succeeded", topology: json(k6.topology), workload: json(k6.workload) },
    });
    ids.push(newer);
    const second = await list({ q: tag, limit: 10, cursor: first.nextCursor });
    const both = [...first.items, ...second.items].map((r) => r.id);
    expect(new Set(both).size).toBe(20);
    expect(both).not.toContain(newer);
  });

  it("finds one run among thousands by name, case-insensitively and literally (% is a character), and by its id's start", async () => {
    const needle = ids[1234]!;
    for (const q of [`needle ${tag}`, `NEEDLE ${tag.toUpperCase()}`, "50% off"]) {
      const page = await list({ q });
      expect(
        page.items.map((r) => r.id),
        q,
      ).toEqual([needle]);
    }
    // As a wildcard, % would match "… 50% off".
    expect((await list({ q: `${tag}%off` })).items).toEqual([]);
    expect((await list({ q: needle.slice(0, 13).toUpperCase() })).items.map((r) => r.id)).toEqual([needle]);
  });

  it("filters by one or several statuses and by load generator", async () => {
    const failed = await pages({ q: tag, status: ["failed"], limit: 500 });
    expect(failed.ids.length).toBe(N / 4);
    const two = await pages({ q: tag, status: "failed,cancelled", limit: 500 });
    expect(two.ids.length).toBe(N / 2);
    const rows = await deps.db.run.findMany({ where: { id: { in: two.ids } }, select: { status: true } });
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(["failed", "cancelled"]));
    const wrkRuns = await pages({ q: tag, loadgen: "wrk", limit: 500 });
    expect(wrkRuns.ids.length).toBe(N / 2);
    expect(wrkRuns.ids).toContain(ids[1]);
    expect(wrkRuns.ids).not.toContain(ids[0]);
    // wrk runs are the odd ones; failed are i % 4 == 1: all of them are wrk.
    expect((await pages({ q: tag, loadgen: "k6", status: ["failed"], limit: 500 })).ids).toEqual([]);
  });

  it("filters by a date range on created_at: a date is a whole UTC day", async () => {
    // 3 runs a minute: 1,440 minutes a day = 4,320 runs, so the first day holds them all but the newest.
    const day = await pages({ q: tag, from: "2026-01-01", to: "2026-01-01", limit: 500 });
    const expected = ids.slice(0, N).filter((_, i) => createdAtOf(i) < new Date("2026-01-02T00:00:00Z"));
    expect(day.ids.length).toBe(expected.length);
    const hour = await pages({ q: tag, from: "2026-01-01T01:00:00Z", to: "2026-01-01T01:59:59.999Z", limit: 500 });
    expect(hour.ids.length).toBe(180);
  });

  it("experiment=none lists stand-alone runs; an id lists that experiment's runs", async () => {
    const ref = await createExperiment(deps, {
      name: `${tag} experiment`,
      base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 } },
      variants: [{ name: "one", patch: {} }],
      repetitions: 2,
      settleSeconds: 0,
      thresholds: [],
    });
    const own = await list({ experiment: ref.id });
    expect(own.items).toHaveLength(2);
    expect(own.items.every((r) => r.experiment?.id === ref.id)).toBe(true);
    const alone = await pages({ experiment: "none", limit: 500 });
    expect(alone.ids).not.toContain(own.items[0]!.id);
    expect(alone.ids).toEqual(expect.arrayContaining(ids.slice(0, 10)));
    const found = await listExperiments(deps, ZExperimentListInput.parse({ q: `${tag} EXPERIMENT` }));
    expect(found.items.map((e) => e.id)).toEqual([ref.id]);
    expect(found.nextCursor).toBeNull();
  });

  it("experiments page oldest first too, ties broken by id, and refuse the other order's cursor", async () => {
    const at = (m: number) => new Date(base - 86_400_000 + m * 60_000);
    const made = [0, 1, 1, 2, 3].map((m, i) => ({ id: randomUUID(), name: `${tag} paged experiment ${i}`, createdAt: at(m) }));
    await deps.db.experiment.createMany({
      data: made.map((e) => ({
        ...e,
        definition: json({}),
        variants: json([]),
        repetitions: 1,
        settleSeconds: 0,
        plannedRuns: 0,
        estimatedSeconds: 0,
      })),
    });
    const expected = [...made].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1)).map((e) => e.id);
    const all = async (order: "newest" | "oldest") => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await listExperiments(
          deps,
          ZExperimentListInput.parse({ q: `${tag} paged`, limit: 2, order, ...(cursor && { cursor }) }),
        );
        out.push(...page.items.map((e) => e.id));
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    };
    expect(await all("oldest")).toEqual(expected);
    expect(await all("newest")).toEqual([...expected].reverse());
    const first = await listExperiments(deps, ZExperimentListInput.parse({ q: `${tag} paged`, limit: 2 }));
    const r = ZExperimentListInput.safeParse({ q: `${tag} paged`, limit: 2, order: "oldest", cursor: first.nextCursor });
    expect(r.error?.issues.map((i) => i.path)).toEqual([["cursor"]]);
  });

  it("a cursor that is not one it gave is refused naming cursor", () => {
    const r = ZRunListInput.safeParse({ cursor: "bm9wZQ" });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["cursor"]);
  });
});

describe("delete", () => {
  async function runWithEverything(name: string, experimentId?: string): Promise<string> {
    const id = randomUUID();
    await deps.db.run.create({
      data: {
        id,
        name,
        status: "succeeded",
        topology: json(k6.topology),
        workload: json(k6.workload),
        ...(experimentId && { experimentId, variant: 0, repetition: 0 }),
      },
    });
    await deps.db.runSample.createMany({ data: [1, 2, 3].map((t) => ({ runId: id, t, requests: 10, errors: 0 })) });
    await deps.db.runEvent.create({ data: { runId: id, step: "done", message: "done" } });
    await deps.db.figureSample.create({ data: { runId: id, t: 1, figures: { "pool.busy": 1 } } });
    await deps.db.containerSample.create({ data: { runId: id, t: 1, container: "app-0", role: "app", cpuPct: 10, memBytes: 1n } });
    return id;
  }
  const leftOf = async (id: string) =>
    Promise.all([
      deps.db.run.count({ where: { id } }),
      deps.db.runSample.count({ where: { runId: id } }),
      deps.db.runEvent.count({ where: { runId: id } }),
      deps.db.figureSample.count({ where: { runId: id } }),
      deps.db.containerSample.count({ where: { runId: id } }),
    ]);

  it("a finished run goes with its samples, events and figures", async () => {
    const id = await runWithEverything(`${tag} doomed`);
    expect(await leftOf(id)).toEqual([1, 3, 1, 1, 1]);
    expect(await deleteRun(deps, id)).toEqual({ id, deleted: true });
    expect(await leftOf(id)).toEqual([0, 0, 0, 0, 0]);
    expect((await list({ q: `${tag} doomed` })).items).toEqual([]);
  });

  it("an unknown run or experiment is not found", async () => {
    for (const attempt of [() => deleteRun(deps, "no-such-run"), () => deleteExperiment(deps, "no-such-experiment")]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe("not_found");
    }
  });

  it("a queued run leaves the queue and is deleted at once", async () => {
    const ref = await rerun(deps, ids[0]!);
    expect(await deps.queue.getJob(ref.id)).toBeDefined();
    expect(await deleteRun(deps, ref.id)).toEqual({ id: ref.id, deleted: true });
    expect(await deps.queue.getJob(ref.id)).toBeUndefined();
    expect(await deps.db.run.count({ where: { id: ref.id } })).toBe(0);
  });

  it("a running run is asked to cancel, hidden from the list, and left for the worker to delete after its teardown", async () => {
    const id = await runWithEverything(`${tag} running`);
    await deps.db.run.update({ where: { id }, data: { status: "running", step: "running" } });
    expect(await deleteRun(deps, id)).toEqual({ id, deleted: false });
    const row = await deps.db.run.findUniqueOrThrow({ where: { id } });
    expect([row.status, row.cancelRequested, row.deleteRequested]).toEqual(["running", true, true]);
    expect((await list({ q: `${tag} running` })).items).toEqual([]);
    // What the worker does once it has torn the run down (worker deletion.ts; its own test runs it for real).
    await deps.db.run.update({ where: { id }, data: { status: "cancelled" } });
    expect(await deleteRun(deps, id)).toEqual({ id, deleted: true });
    expect(await leftOf(id)).toEqual([0, 0, 0, 0, 0]);
  });

  it("an experiment goes with its runs, their samples, events and figures; its queued runs leave the queue", async () => {
    const ref = await createExperiment(deps, {
      name: `${tag} doomed experiment`,
      base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 } },
      variants: [{ name: "one", patch: {} }],
      repetitions: 2,
      settleSeconds: 0,
      thresholds: [],
    });
    const queued = (await list({ experiment: ref.id })).items.map((r) => r.id);
    expect(queued).toHaveLength(2);
    const finished = await runWithEverything(`${tag} experiment run`, ref.id);
    expect(await deleteExperiment(deps, ref.id)).toEqual({ id: ref.id, deleted: true });
    expect(await deps.db.experiment.count({ where: { id: ref.id } })).toBe(0);
    expect(await leftOf(finished)).toEqual([0, 0, 0, 0, 0]);
    expect(await deps.db.run.count({ where: { id: { in: queued } } })).toBe(0);
    for (const id of queued) expect(await deps.queue.getJob(id)).toBeUndefined();
  });

  it("an experiment with a running run: the experiment goes at once, the run is detached and left for the worker", async () => {
    const ref = await createExperiment(deps, {
      name: `${tag} busy experiment`,
      base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 } },
      variants: [{ name: "one", patch: {} }],
      repetitions: 1,
      settleSeconds: 0,
      thresholds: [],
    });
    const [run] = (await list({ experiment: ref.id })).items;
    await deps.db.run.update({ where: { id: run!.id }, data: { status: "running" } });
    expect(await deleteExperiment(deps, ref.id)).toEqual({ id: ref.id, deleted: false });
    expect(await deps.db.experiment.count({ where: { id: ref.id } })).toBe(0);
    const row = await deps.db.run.findUniqueOrThrow({ where: { id: run!.id } });
    expect([row.experimentId, row.deleteRequested, row.cancelRequested]).toEqual([null, true, true]);
    ids.push(run!.id);
  });
});

describe("rerun", () => {
  it("queues a new stand-alone run of the same definition, faults without what happened to them", async () => {
    const def = ZRunCreate.parse({
      name: `${tag} with faults`,
      topology: { service: { replicas: 2, memoryMb: 64 } },
      workload: { endpoint: "hostname", vus: 1, durationSeconds: 10 },
      faults: [{ at: 3, action: "stop", target: { role: "app", index: 1 } }],
    });
    const ref = await createExperiment(deps, {
      name: `${tag} source`,
      base: def,
      variants: [{ name: "one", patch: {} }],
      repetitions: 1,
      settleSeconds: 0,
      thresholds: [],
    });
    const [source] = (await list({ experiment: ref.id })).items;
    await deps.db.run.update({
      where: { id: source!.id },
      data: { status: "succeeded", faults: json(def.faults.map((f) => ({ ...f, actual: { atMs: 3004, lagMs: 4, tookMs: 210 } }))) },
    });
    const again = await rerun(deps, source!.id);
    expect(again.status).toBe("queued");
    const row = await deps.db.run.findUniqueOrThrow({ where: { id: again.id } });
    expect(row.experimentId).toBeNull();
    expect(row.name).toBe(source!.name);
    expect(row.topology).toEqual((await deps.db.run.findUniqueOrThrow({ where: { id: source!.id } })).topology);
    expect(row.workload).toEqual(json(def.workload));
    expect(row.faults).toEqual(json(def.faults));
    expect((await deps.queue.getJob(again.id))?.data).toEqual({ runId: again.id });
    const err = await rerun(deps, "no-such-run").catch((e: unknown) => e);
    expect((err as AppError).kind).toBe("not_found");
  });
});
