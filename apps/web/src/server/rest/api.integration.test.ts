import { randomUUID } from "node:crypto";
import { createDb } from "@scalelab/db";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/env";
import { appRouter } from "../routers/_app";
import type { Deps } from "../runtime";
import { createRun, getRun } from "../runs/service";
import { coercedSchemas, NOT_NUMBERS, post, runBody } from "../testing";
import { openServiceDeps } from "../testing-services";
import { createTrpcHandler } from "../trpc-http";
import { createRestHandler } from "./handler";
import { openApiDocument } from "./openapi";

// Real Postgres and Redis (DATABASE_URL, REDIS_URL; getEnv throws when they are not set, and
// beforeAll fails when they do not answer); a queue of its own so no worker takes these jobs.
const env = getEnv();
const API = "http://lab.test/api/v1";
const TRPC = "http://lab.test/api/trpc";
const prefix = `api-integration ${randomUUID().slice(0, 8)}`;
let deps: Deps;
let rest: (req: Request) => Promise<Response>;
let trpc: (req: Request) => Promise<Response>;

const named = (suffix: string) => `${prefix} ${suffix}`;
const stored = (name: string) => deps.db.run.count({ where: { name } });
type TrpcError = { error: { message: string; data: { code: string; issues: { path: string; message: string }[] | null } } };

let close: () => Promise<void>;

beforeAll(async () => {
  // Fails here, loudly, when a service is missing: these tests never skip.
  ({ deps, close } = await openServiceDeps());
  rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }) });
  trpc = createTrpcHandler({ router: appRouter, createContext: () => ({ deps }) });
});

afterAll(async () => {
  await deps.db.run.deleteMany({ where: { name: { startsWith: prefix } } });
  await close();
});

describe("numbers are JSON numbers, over REST and tRPC alike", () => {
  it('REST creates a run from JSON numbers (201) and refuses replicas "3" naming the field, storing nothing', async () => {
    const good = named("rest ok");
    const created = await rest(post(`${API}/runs`, JSON.stringify(runBody(3, good))));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await getRun(deps, id)).topology.service.replicas).toBe(3);
    expect(await deps.queue.getJob(id)).toBeDefined();

    const bad = named("rest string");
    const refused = await rest(post(`${API}/runs`, JSON.stringify(runBody("3", bad))));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: "invalid_input",
      issues: [{ path: "topology.service.replicas", message: "service.replicas must be a number" }],
    });
    expect(await stored(bad)).toBe(0);
  });

  it("tRPC runs.create refuses every non-number after REST calls in this process, and the shared schema is unchanged", async () => {
    for (const [label, replicas] of NOT_NUMBERS) {
      await rest(post(`${API}/runs`, JSON.stringify(runBody(replicas, named(`rest ${label}`)))));
      const name = named(`trpc ${label}`);
      const res = await trpc(post(`${TRPC}/runs.create`, JSON.stringify(runBody(replicas, name))));
      expect(res.status, `replicas ${label}`).toBe(400);
      const { error } = (await res.json()) as TrpcError;
      expect(error.data.code).toBe("BAD_REQUEST");
      expect(error.data.issues).toContainEqual(expect.objectContaining({ path: "topology.service.replicas" }));
      expect(await stored(name)).toBe(0);
    }
    expect(coercedSchemas(ZRunCreate)).toEqual([]);
    expect(ZRunCreate.safeParse(runBody("3")).success).toBe(false);
  });

  it("GET /runs?limit=5 still reads its number from the query string", async () => {
    const res = await rest(new Request(`${API}/runs?limit=5`));
    expect(res.status).toBe(200);
    const { items: runs } = (await res.json()) as { items: unknown[] };
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.length).toBeLessThanOrEqual(5);
    expect((await rest(new Request(`${API}/runs?limit=0x10`))).status).toBe(400);
  });
});

describe("GET /runs?order= (tRPC runs.list)", () => {
  it("pages oldest first; a cursor is refused with the other order, a 400 naming cursor, over REST and tRPC alike", async () => {
    for (const n of [1, 2]) expect((await rest(post(`${API}/runs`, JSON.stringify(runBody(1, named(`order ${n}`)))))).status).toBe(201);
    // Created within a millisecond or two: the order is the database's (created_at, then id).
    const expected = (
      await deps.db.run.findMany({ where: { name: { startsWith: named("order") } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })
    ).map((r) => r.name);
    expect(expected).toHaveLength(2);
    const q = encodeURIComponent(named("order"));
    const first = await rest(new Request(`${API}/runs?q=${q}&limit=1&order=oldest`));
    expect(first.status).toBe(200);
    const page = (await first.json()) as { items: { name: string }[]; nextCursor: string };
    expect(page.items.map((r) => r.name)).toEqual([expected[0]]);
    const cursor = encodeURIComponent(page.nextCursor);
    const second = (await (await rest(new Request(`${API}/runs?q=${q}&limit=1&order=oldest&cursor=${cursor}`))).json()) as {
      items: { name: string }[];
    };
    expect(second.items.map((r) => r.name)).toEqual([expected[1]]);

    const mismatch = await rest(new Request(`${API}/runs?q=${q}&limit=1&cursor=${cursor}`));
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ issues: [{ path: "cursor", message: expect.stringContaining("order=oldest") }] });
    const viaTrpc = await trpc(
      new Request(`${TRPC}/runs.list?input=${encodeURIComponent(JSON.stringify({ limit: 1, order: "newest", cursor: page.nextCursor }))}`),
    );
    expect(viaTrpc.status).toBe(400);
    expect(((await viaTrpc.json()) as TrpcError).error.data.issues).toEqual([
      { path: "cursor", message: expect.stringContaining("order=oldest") },
    ]);

    for (const path of ["runs", "experiments"]) {
      const bad = await rest(new Request(`${API}/${path}?order=asc`));
      expect(bad.status, path).toBe(400);
      expect(await bad.json()).toMatchObject({ issues: [{ path: "order", message: "order must be one of: newest, oldest" }] });
    }
  });
});

describe("NUL bytes never reach Postgres", () => {
  it("Postgres itself refuses them (what the guard prevents)", async () => {
    await expect(getRun(deps, "\u0000")).rejects.toThrow();
  });

  it("a NUL in a path id is a 400 naming id, on every endpoint that takes one", async () => {
    for (const req of [
      new Request(`${API}/runs/%00`),
      new Request(`${API}/runs/x%00y/samples`),
      post(`${API}/runs/%00/cancel`, null, {}),
    ]) {
      const res = await rest(req);
      expect(res.status, req.url).toBe(400);
      expect(await res.json()).toEqual({
        error: "invalid_input",
        message: "Input validation failed",
        issues: [{ path: "id", message: "id must not contain NUL bytes" }],
      });
    }
  });

  it("in the ids of /compare, in a name, and over tRPC, it is a 400 naming the field", async () => {
    const compare = await rest(new Request(`${API}/compare?ids=a,b%00`));
    expect(compare.status).toBe(400);
    expect(await compare.json()).toMatchObject({ issues: [{ path: "ids", message: "ids must not contain NUL bytes" }] });

    const name = named("nul\u0000");
    const created = await rest(post(`${API}/runs`, JSON.stringify(runBody(1, name))));
    expect(created.status).toBe(400);
    expect(await created.json()).toMatchObject({ issues: [{ path: "name" }] });

    const get = await trpc(new Request(`${TRPC}/runs.get?input=${encodeURIComponent(JSON.stringify({ id: "a\u0000" }))}`));
    expect(get.status).toBe(400);
    expect(((await get.json()) as TrpcError).error.data.issues).toEqual([{ path: "id", message: "id must not contain NUL bytes" }]);
  });
});

describe("database errors never reach a client", () => {
  it("a Prisma error (a database that does not exist) is a generic 500 over REST and tRPC", async () => {
    const missing = new URL(env.DATABASE_URL);
    missing.pathname = `/scalelab_missing_${randomUUID().slice(0, 8)}`;
    const broken: Deps = { ...deps, db: createDb(missing.toString()) };
    const logged: unknown[] = [];
    const log = (_: string, err: unknown) => void logged.push(err);
    try {
      const restRes = await createRestHandler({ router: appRouter, createContext: () => ({ deps: broken }), log })(
        new Request(`${API}/runs/abc`),
      );
      const restText = await restRes.text();
      expect(restRes.status).toBe(500);
      expect(JSON.parse(restText)).toEqual({ error: "internal", message: "Internal server error" });

      const trpcRes = await createTrpcHandler({ router: appRouter, createContext: () => ({ deps: broken }), log })(
        new Request(`${TRPC}/runs.get?input=${encodeURIComponent(JSON.stringify({ id: "abc" }))}`),
      );
      const trpcText = await trpcRes.text();
      expect(trpcRes.status).toBe(500);
      expect((JSON.parse(trpcText) as TrpcError).error.message).toBe("Internal server error");

      for (const text of [restText, trpcText]) {
        expect(text).not.toContain("scalelab_missing");
        expect(text).not.toContain(missing.port);
      }
      expect(logged).toHaveLength(2);
      expect(String(logged[0])).toContain("scalelab_missing");
    } finally {
      await broken.db.$disconnect();
    }
  }, 30_000);
});

describe("GET /runs/{id}/containers (tRPC runs.containers)", () => {
  it("lists every container's resources per second, in order of the second; older rows lack the later columns; 404 for an unknown run", async () => {
    const { id } = await createRun(deps, ZRunCreate.parse(runBody(1, named("containers"))));
    await deps.queue.remove(id);
    const app = { role: "app", cpuPct: 20.2, memBytes: 9_000_000n, throttledPeriods: 10 };
    await deps.db.containerSample.createMany({
      data: [
        { runId: id, t: 1, container: "sl-x-app-0", ...app, throttledMs: 1342.6, netRxBps: 754_781.7, netTxBps: 1_577_384.9 },
        {
          runId: id,
          t: 1,
          container: "sl-x-lb",
          role: "lb",
          cpuPct: 31,
          memBytes: 4_000_000n,
          throttledPeriods: 0,
          throttledMs: 0,
          netRxBps: 2e6,
          netTxBps: 2.1e6,
        },
        // A row recorded before throttled time and network were (the columns are null).
        { runId: id, t: 0, container: "sl-x-app-0", ...app },
      ],
    });
    const expected = [
      { t: 0, container: "sl-x-app-0", role: "app", cpuPct: 20.2, memBytes: 9_000_000, throttledPeriods: 10 },
      {
        t: 1,
        container: "sl-x-app-0",
        role: "app",
        cpuPct: 20.2,
        memBytes: 9_000_000,
        throttledPeriods: 10,
        throttledMs: 1342.6,
        netRxBps: 754_781.7,
        netTxBps: 1_577_384.9,
      },
      {
        t: 1,
        container: "sl-x-lb",
        role: "lb",
        cpuPct: 31,
        memBytes: 4_000_000,
        throttledPeriods: 0,
        throttledMs: 0,
        netRxBps: 2e6,
        netTxBps: 2.1e6,
      },
    ];

    const res = await rest(new Request(`${API}/runs/${id}/containers`));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expected);

    const viaTrpc = await trpc(new Request(`${TRPC}/runs.containers?input=${encodeURIComponent(JSON.stringify({ id }))}`));
    expect(viaTrpc.status).toBe(200);
    expect(((await viaTrpc.json()) as { result: { data: unknown } }).result.data).toEqual(expected);

    const missing = await rest(new Request(`${API}/runs/${randomUUID()}/containers`));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "not_found" });

    const doc = openApiDocument();
    const op = (
      doc.paths!["/runs/{id}/containers"] as { get: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }
    ).get;
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "404"]));
    expect(op.responses["200"]!.content!["application/json"]!.schema).toMatchObject({
      type: "array",
      items: {
        properties: {
          t: {},
          container: {},
          role: {},
          cpuPct: {},
          memBytes: {},
          throttledPeriods: {},
          throttledMs: {},
          netRxBps: {},
          netTxBps: {},
        },
      },
    });
  });
});

describe("GET /runs/{id}/host (tRPC runs.host)", () => {
  it("lists the host's CPU per second of the load, an unknown outside figure as null; 404 for an unknown run", async () => {
    const { id } = await createRun(deps, ZRunCreate.parse(runBody(1, named("host"))));
    await deps.queue.remove(id);
    await deps.db.hostSample.createMany({
      data: [
        { runId: id, t: 1, cores: 2, hostCpuPct: 200, runCpuPct: 9.31, workerCpuPct: 2.04, otherCpuPct: 188.65 },
        // Recorded: no container reading in this second (Docker's readings drifted), so what else ran is unknown.
        { runId: id, t: 0, cores: 2, hostCpuPct: 200, runCpuPct: 0, workerCpuPct: 3, otherCpuPct: null },
      ],
    });
    const expected = [
      { t: 0, cores: 2, hostCpuPct: 200, runCpuPct: 0, workerCpuPct: 3, otherCpuPct: null },
      { t: 1, cores: 2, hostCpuPct: 200, runCpuPct: 9.31, workerCpuPct: 2.04, otherCpuPct: 188.65 },
    ];
    const res = await rest(new Request(`${API}/runs/${id}/host`));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expected);
    const viaTrpc = await trpc(new Request(`${TRPC}/runs.host?input=${encodeURIComponent(JSON.stringify({ id }))}`));
    expect(((await viaTrpc.json()) as { result: { data: unknown } }).result.data).toEqual(expected);
    const missing = await rest(new Request(`${API}/runs/${randomUUID()}/host`));
    expect(missing.status).toBe(404);
    // Deleting the run deletes its host seconds.
    await deps.db.run.delete({ where: { id } });
    expect(await deps.db.hostSample.count({ where: { runId: id } })).toBe(0);
  });
});

describe("thresholds (runs, experiments)", () => {
  it("POST /runs stores them, GET /runs/{id} shows them with summary.thresholds; bad ones are a 400 naming thresholds.N.field over REST and tRPC", async () => {
    const name = named("thresholds");
    const thresholds = [{ metric: "p95", op: "<", value: 250 }];
    const created = await rest(post(`${API}/runs`, JSON.stringify({ ...runBody(1, name), thresholds })));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await deps.queue.remove(id);
    // What the worker stores when the run succeeds (its pipeline is tested in the worker's thresholds.integration.test.ts).
    const summary = {
      requests: 100,
      rps: 20,
      errors: 0,
      errorRate: 0,
      latencyMs: { avg: 1, p50: 1, p90: 2, p95: 312.5, p99: 400, max: 500 },
      thresholds: { passed: false, results: [{ metric: "p95", op: "<", value: 250, actual: 312.5, passed: false }] },
    };
    await deps.db.run.update({ where: { id }, data: { status: "succeeded", summary } });
    const view = (await (await rest(new Request(`${API}/runs/${id}`))).json()) as { thresholds: unknown; summary: { thresholds: unknown } };
    expect(view.thresholds).toEqual(thresholds);
    expect(view.summary.thresholds).toEqual(summary.thresholds);

    const bad = named("bad thresholds");
    const body = { ...runBody(1, bad), thresholds: [{ metric: "p96", op: "=<", value: -1 }] };
    const expected = [
      { path: "thresholds.0.metric", message: "metric must be one of: rps, p50, p90, p95, p99, max, errorRate, checks" },
      { path: "thresholds.0.op", message: "op must be one of: < <= > >=" },
      { path: "thresholds.0.value", message: "value must be a number ≥ 0" },
    ];
    const refused = await rest(post(`${API}/runs`, JSON.stringify(body)));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_input", issues: expected });
    const viaTrpc = await trpc(post(`${TRPC}/runs.create`, JSON.stringify(body)));
    expect(viaTrpc.status).toBe(400);
    expect(((await viaTrpc.json()) as TrpcError).error.data.issues).toEqual(expected);
    const checks = await rest(
      post(`${API}/runs`, JSON.stringify({ ...runBody(1, bad), thresholds: [{ metric: "checks", op: ">=", value: 0.9 }] })),
    );
    expect(checks.status).toBe(400);
    expect(await checks.json()).toMatchObject({
      issues: [{ path: "thresholds.0.metric", message: expect.stringContaining("this run has no workload.script") }],
    });
    expect(await stored(bad)).toBe(0);
  });

  it("POST /experiments refuses a bad comparison threshold naming its field; the document shows thresholds with an example", async () => {
    const res = await rest(
      post(
        `${API}/experiments/preview`,
        JSON.stringify({ name: named("exp"), base: runBody(1), thresholds: [{ metric: "rps", compare: "baseline", worseBy: -5 }] }),
      ),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      issues: [{ path: "thresholds.0.worseBy", message: "worseBy must be between 0 and 1000 (percent)" }],
    });
    type Json = {
      schema: { properties: Record<string, { examples?: unknown[]; description?: string }> };
      examples: Record<string, { value: unknown }>;
    };
    const body = (path: string) =>
      (openApiDocument().paths![path] as { post: { requestBody: { content: { "application/json": Json } } } }).post.requestBody.content[
        "application/json"
      ];
    expect(body("/runs").schema.properties.thresholds!.examples).toEqual([[{ metric: "p95", op: "<", value: 250 }]]);
    expect(body("/runs").examples.withThresholds!.value).toMatchObject({
      thresholds: [{ metric: "p95", op: "<", value: 250 }, expect.anything()],
    });
    expect(body("/experiments").schema.properties.thresholds!.description).toMatch(/^Per-run thresholds/);
    expect(body("/experiments").examples.thresholds!.value).toMatchObject({
      thresholds: [
        { metric: "errorRate", op: "<", value: 0.01 },
        { metric: "rps", compare: "baseline", worseBy: 5, p: 0.05 },
      ],
    });
  });
});
