import { randomUUID } from "node:crypto";
import type { TExperimentCreateInput } from "@scalelab/scenarios/experiments";
import { ZExperimentCreate } from "@scalelab/scenarios/experiments";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { removeEngine } from "@scalelab/db/engines";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { createRestHandler } from "../rest/handler";
import { OPERATION_EXAMPLES } from "../rest/openapi";
import { appRouter } from "../routers/_app";
import type { Deps, RunQueue } from "../runtime";
import { post } from "../testing";
import { openServiceDeps } from "../testing-services";
import { getRun } from "../runs/service";
import { cancelExperiment, createExperiment, getExperiment } from "./service";

// Real Postgres and Redis; a queue of its own so that no worker takes these jobs (the worker's side
// is apps/worker/src/experiments.integration.test.ts).
const API = "http://lab.test/api/v1";
const prefix = `experiments-integration ${randomUUID().slice(0, 8)}`;
let deps: Deps;
let rest: (req: Request) => Promise<Response>;

const body = (over: Partial<TExperimentCreateInput> = {}): TExperimentCreateInput => ({
  name: `${prefix} ${randomUUID().slice(0, 6)}`,
  base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { vus: 1, durationSeconds: 5 } },
  variants: [
    { name: "one", patch: {} },
    { name: "two", patch: { topology: { service: { replicas: 2 } } } },
  ],
  repetitions: 2,
  settleSeconds: 1,
  ...over,
});
const storedExperiments = (name: string) => deps.db.experiment.count({ where: { name } });

let close: () => Promise<void>;

beforeAll(async () => {
  ({ deps, close } = await openServiceDeps());
  rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }) });
});

afterAll(async () => {
  await deps.db.experiment.deleteMany({ where: { name: { startsWith: prefix } } });
  await close();
});

describe("createExperiment", () => {
  it("stores the experiment and its runs, and queues them interleaved (one, two, one, two)", async () => {
    const ref = await createExperiment(deps, ZExperimentCreate.parse(body()));
    expect(ref).toMatchObject({ status: "queued", runs: 4 });
    expect(ref.estimatedSeconds).toBeGreaterThan(4 * 5);
    const view = await getExperiment(deps, ref.id);
    expect(view.status).toBe("queued");
    expect(view.variants.map((v) => [v.name, v.runs.length])).toEqual([
      ["one", 2],
      ["two", 2],
    ]);
    const jobs = await deps.queue.getJobs(["waiting"], 0, -1, true);
    const ours = new Set(view.variants.flatMap((v) => v.runs.map((r) => r.id)));
    const order = jobs.filter((j) => ours.has(j.id!)).map((j) => j.id!);
    const where = (id: string) => view.variants.flatMap((v) => v.runs.map((r) => ({ ...r, variant: v.name }))).find((r) => r.id === id)!;
    expect(order.map((id) => `${where(id).variant}#${where(id).repetition}`)).toEqual(["one#0", "two#0", "one#1", "two#1"]);
    const run = await deps.db.run.findFirstOrThrow({ where: { experimentId: ref.id, variant: 1 } });
    expect((run.topology as { service: { replicas: number } }).service.replicas).toBe(2);
    expect((await getRun(deps, run.id)).experiment).toEqual({ id: ref.id, repetition: run.repetition, attempt: 1 });
  });

  it("a variant the host cannot hold is a 400 naming the variant's field, and nothing is stored", async () => {
    const b = body({
      variants: [
        { name: "ok", patch: {} },
        { name: "greedy", patch: { topology: { service: { cpus: 64 } } } },
      ],
    });
    const err = await createExperiment(deps, ZExperimentCreate.parse(b)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).issues[0]).toMatchObject({
      path: "variants.1.patch.topology.service.cpus",
      message: expect.stringMatching(/^variant "greedy": service.cpus must be between 0.05 and \d+/),
    });
    expect(await storedExperiments(b.name)).toBe(0);
  });

  it("when the queue cannot be reached nothing remains: no experiment, no run", async () => {
    const connection = new Redis("redis://127.0.0.1:1", { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    connection.on("error", () => {});
    const unreachable = new Queue("unreachable", { connection });
    unreachable.on("error", () => {});
    const b = body();
    const err = await createExperiment({ ...deps, queue: unreachable as RunQueue }, ZExperimentCreate.parse(b)).catch((e: unknown) => e);
    expect((err as AppError).kind).toBe("unavailable");
    expect(await storedExperiments(b.name)).toBe(0);
    expect(await deps.db.run.count({ where: { name: { startsWith: b.name } } })).toBe(0);
    await unreachable.close().catch(() => {});
  }, 20_000);
});

describe("getExperiment", () => {
  it("statistics come from the runs' whole-run figures; the view says which slot is still to run", async () => {
    const ref = await createExperiment(deps, ZExperimentCreate.parse(body()));
    const runs = await deps.db.run.findMany({ where: { experimentId: ref.id } });
    const rps = (variant: number, repetition: number) => (variant === 0 ? 100 + repetition : 250 + repetition);
    for (const r of runs.filter((x) => !(x.variant === 1 && x.repetition === 1))) {
      const v = rps(r.variant!, r.repetition!);
      await deps.db.run.update({
        where: { id: r.id },
        data: {
          status: "succeeded",
          startedAt: new Date(Date.now() - 20_000),
          finishedAt: new Date(),
          summary: { requests: v * 5, rps: v, errors: 0, errorRate: 0, latencyMs: { avg: 5, p50: 4, p90: 6, p95: 7, p99: 9, max: 12 } },
        },
      });
    }
    const view = await getExperiment(deps, ref.id);
    expect(view.status).toBe("running");
    expect(view.progress).toMatchObject({ planned: 4, finished: 3, left: 1, succeeded: 3 });
    expect(view.variants[0]!.statistics.metrics.rps).toMatchObject({ n: 2, mean: 100.5 });
    expect(view.variants[1]!.statistics.runs).toBe(1);
    const rpsCmp = view.comparisons.find((c) => c.metric === "rps")!;
    expect(rpsCmp).toMatchObject({ baseline: "one", variant: "two", pValue: null, significant: false });
    expect(rpsCmp.reason).toMatch(/at least 2 runs on each side/);
  });
});

describe("cancelExperiment", () => {
  it("cancels every queued run and takes them off the queue; the experiment ends cancelled", async () => {
    const ref = await createExperiment(deps, ZExperimentCreate.parse(body()));
    const out = await cancelExperiment(deps, ref.id);
    expect(out.status).toBe("cancelled");
    const runs = await deps.db.run.findMany({ where: { experimentId: ref.id } });
    expect(runs.map((r) => r.status)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled"]);
    for (const r of runs) expect(await deps.queue.getJob(r.id)).toBeUndefined();
  });
});

describe("REST", () => {
  it("POST /experiments → 201 {id, status, runs}; GET /experiments/{id} has the comparisons' shape", async () => {
    const res = await rest(post(`${API}/experiments`, JSON.stringify(body())));
    expect(res.status).toBe(201);
    const ref = (await res.json()) as { id: string; status: string; runs: number };
    expect(ref).toMatchObject({ status: "queued", runs: 4 });
    const got = await rest(new Request(`${API}/experiments/${ref.id}`));
    expect(got.status).toBe(200);
    const view = (await got.json()) as { variants: unknown[]; comparisons: unknown[]; findings: unknown[]; usl: unknown };
    expect(view.variants).toHaveLength(2);
    expect(view.findings).toEqual([]);
    expect(view.usl).toBeNull();
  });

  it("more than 200 runs is a 400 that says how many, and nothing is stored", async () => {
    const b = body({
      variants: undefined,
      sweep: [{ field: "workload.vus", values: Array.from({ length: 11 }, (_, i) => i + 1) }],
      repetitions: 20,
    });
    const res = await rest(post(`${API}/experiments`, JSON.stringify(b)));
    expect(res.status).toBe(400);
    const err = (await res.json()) as { issues: { path: string; message: string }[] };
    expect(err.issues[0]).toMatchObject({ path: "repetitions", message: expect.stringMatching(/220 runs .* at most 200/) });
    expect(await storedExperiments(b.name)).toBe(0);
  });

  it("POST /experiments/preview lists the variants and the estimate without storing anything", async () => {
    const b = body({ variants: undefined, sweep: [{ field: "topology.service.replicas", values: [1, 2, 4, 8] }] });
    const res = await rest(post(`${API}/experiments/preview`, JSON.stringify(b)));
    expect(res.status).toBe(200);
    const p = (await res.json()) as { runs: number; estimatedSeconds: number; variants: { name: string }[] };
    expect(p.runs).toBe(8);
    expect(p.variants.map((v) => v.name)).toEqual(["replicas=1", "replicas=2", "replicas=4", "replicas=8"]);
    expect(await storedExperiments(b.name)).toBe(0);
  });

  it("GET /presets lists the seven write-ups, scale-my-service and the Swarm preset; POST /presets/{name}/run starts one with a patch, an unknown name is a 404", async () => {
    const list = (await (await rest(new Request(`${API}/presets`))).json()) as {
      name: string;
      runs: number;
      reference: unknown[];
      needs?: string;
      engine?: { name: string; nodes: number };
    }[];
    expect(list.filter((p) => !p.needs && !p.engine)).toHaveLength(7);
    expect(list.filter((p) => p.needs).map((p) => [p.name, p.runs])).toEqual([["scale-my-service", 9]]);
    expect(list.filter((p) => p.engine).map((p) => [p.name, p.engine?.name, p.engine?.nodes, p.runs])).toEqual([
      ["replicas-across-nodes", "swarm-local", 4, 6],
    ]);
    // Without a swarm-local engine in this test's database, the Swarm preset is refused naming the engine, and nothing is created.
    await removeEngine(deps.db, "swarm-local");
    const swarm = await rest(post(`${API}/presets/replicas-across-nodes/run`, JSON.stringify({ experimentName: `${prefix} swarm` })));
    expect(swarm.status).toBe(422);
    expect(((await swarm.json()) as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(["engine"]);
    expect(await deps.db.experiment.count({ where: { name: `${prefix} swarm` } })).toBe(0);
    const res = await rest(
      post(
        `${API}/presets/cpu-limit-replicas/run`,
        JSON.stringify({ patch: { name: `${prefix} preset`, workload: { durationSeconds: 5 } }, repetitions: 2 }),
      ),
    );
    expect(res.status).toBe(201);
    const ref = (await res.json()) as { id: string; runs: number };
    expect(ref.runs).toBe(8);
    const view = await getExperiment(deps, ref.id);
    expect(view.preset).toBe("cpu-limit-replicas");
    expect(view.name).toBe("Replicas under CPU limits (modified)");
    expect(view.reference?.figures.length).toBeGreaterThan(0);
    await deps.db.experiment.update({ where: { id: ref.id }, data: { name: `${prefix} preset` } });
    expect((await rest(post(`${API}/presets/nope/run`, "{}"))).status).toBe(404);
    const bad = await rest(post(`${API}/presets/hot-key/run`, JSON.stringify({ repetitions: 0 })));
    expect(bad.status).toBe(400);
  });

  it("POST /presets/scale-my-service/run needs the user's image and its request: without them a 400 naming the field, nothing created; with them 9 runs", async () => {
    const missing = await rest(post(`${API}/presets/scale-my-service/run`, "{}"));
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("service.image is required with kind image");
    const res = await rest(
      post(
        `${API}/presets/scale-my-service/run`,
        JSON.stringify({
          experimentName: `${prefix} scale my service`,
          patch: { topology: { service: { image: "myapp:1.2", healthPath: "/health" } }, workload: { request: { path: "/orders" } } },
          values: [1, 2, 3, 4],
          repetitions: 2,
        }),
      ),
    );
    expect(res.status, await res.clone().text()).toBe(201);
    const ref = (await res.json()) as { id: string; runs: number };
    expect(ref.runs).toBe(8);
    const view = await getExperiment(deps, ref.id);
    expect(view.preset).toBe("scale-my-service");
    expect(view.variants.map((v) => v.name)).toEqual(["replicas=1", "replicas=2", "replicas=3", "replicas=4"]);
    const bad = await rest(post(`${API}/presets/hot-key/run`, JSON.stringify({ values: [1, 2] })));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("values applies to a preset with one sweep axis");
  });

  it("POST /presets/{name}/run with no body runs the preset as it is (the document says the body is optional)", async () => {
    const res = await rest(new Request(`${API}/presets/cpu-limit-replicas/run`, { method: "POST" }));
    expect(res.status).toBe(201);
    const ref = (await res.json()) as { id: string; runs: number };
    await deps.db.experiment.update({ where: { id: ref.id }, data: { name: `${prefix} preset as it is` } });
    const view = await getExperiment(deps, ref.id);
    expect(view.preset).toBe("cpu-limit-replicas");
    expect(view.repetitions).toBe(3);
    expect(ref.runs).toBe(view.variants.length * 3);
  });

  it("the OpenAPI document's examples of POST /experiments and POST /presets/{name}/run are accepted (201)", async () => {
    const experiment = OPERATION_EXAMPLES["experiments-create"]!;
    const preset = OPERATION_EXAMPLES["presets-run"]!;
    const name = `${prefix} document example`;
    const created = await rest(post(`${API}/experiments`, JSON.stringify({ ...(experiment.body as object), name })));
    expect(created.status, await created.clone().text()).toBe(201);
    const run = await rest(
      post(`${API}/presets/${preset.path!.name}/run`, JSON.stringify({ ...(preset.body as object), experimentName: `${name} preset` })),
    );
    expect(run.status, await run.clone().text()).toBe(201);
  });

  it("a preset's patch with a constructor key is a 400 naming it, and no experiment is stored", async () => {
    const experimentName = `${prefix} constructor`;
    const patch = { workload: { constructor: { durationSeconds: 5 } } };
    const res = await rest(post(`${API}/presets/cpu-limit-replicas/run`, JSON.stringify({ experimentName, patch })));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ issues: [{ path: "patch.workload.constructor" }] });
    expect(await storedExperiments(experimentName)).toBe(0);
  });

  it("GET /experiments/{id}/export: the runs as CSV, everything as JSON, a self-contained HTML report; a bad format is a 400", async () => {
    const ref = await createExperiment(deps, ZExperimentCreate.parse(body({ name: `${prefix} export, "quoted"` })));
    const run = await deps.db.run.findFirstOrThrow({ where: { experimentId: ref.id, variant: 0, repetition: 0 } });
    await deps.db.run.update({
      where: { id: run.id },
      data: {
        status: "succeeded",
        summary: { requests: 50, rps: 10, errors: 0, errorRate: 0, latencyMs: { avg: 5, p50: 4, p90: 6, p95: 7, p99: 9, max: 12 } },
      },
    });
    await deps.db.runSample.create({
      data: {
        runId: run.id,
        t: 0,
        requests: 10,
        errors: 0,
        latAvg: 5,
        latP50: 4,
        latP90: 6,
        latP95: 7,
        latP99: 9,
        latMax: 12,
        backends: { "app-0": 10 },
      },
    });

    const csv = await rest(new Request(`${API}/experiments/${ref.id}/export?format=csv`));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(
      /^attachment; filename="experiments-integration-[a-z0-9]+-export-quoted-runs\.csv"$/,
    );
    const lines = (await csv.text()).trim().split("\n");
    expect(lines).toHaveLength(5);
    // The last four columns are a script's checks passed and failed, and the run's thresholds and
    // their results (none here).
    expect(lines.find((l) => l.includes(run.id))).toMatch(/,succeeded,50,10,0,0,5,4,6,7,9,12,,,,,$/);

    const samples = await (await rest(new Request(`${API}/experiments/${ref.id}/export?format=csv&table=samples`))).text();
    expect(samples.trim().split("\n")).toEqual([
      "runId,variant,repetition,t,requests,errors,latAvgMs,latP50Ms,latP90Ms,latP95Ms,latP99Ms,latMaxMs,backend:app-0",
      `${run.id},one,1,0,10,0,5,4,6,7,9,12,10`,
    ]);

    const all = (await (await rest(new Request(`${API}/experiments/${ref.id}/export?format=json`))).json()) as {
      experiment: { id: string };
      runs: { id: string; samples: unknown[] }[];
    };
    expect(all.experiment.id).toBe(ref.id);
    expect(all.runs.find((r) => r.id === run.id)?.samples).toHaveLength(1);

    const html = await rest(new Request(`${API}/experiments/${ref.id}/export?format=html`));
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await html.text();
    expect(page).toContain("<svg");
    expect(page).toContain("export, &quot;quoted&quot;");

    const bad = await rest(new Request(`${API}/experiments/${ref.id}/export?format=xlsx`));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { issues: { path: string; message: string }[] }).issues[0]).toEqual({
      path: "format",
      message: "format must be one of: csv, json, html",
    });

    const runCsv = await rest(new Request(`${API}/runs/${run.id}/export?format=csv`));
    expect((await runCsv.text()).trim().split("\n")[1]).toBe("0,10,0,5,4,6,7,9,12,10");
  });
});
