import { randomUUID } from "node:crypto";
import { DEFAULT_QUOTAS, type TExperimentCreateInput } from "@scalelab/scenarios/experiments";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRestHandler } from "../rest/handler";
import { appRouter } from "../routers/_app";
import type { Deps } from "../runtime";
import { readHostBounds } from "../runs/service";
import { post } from "../testing";
import { openServiceDeps } from "../testing-services";
import { createTrpcHandler } from "../trpc-http";
import { quotasOf, readQueue } from "./service";

// Real Postgres and Redis; a queue of its own so that no worker takes these jobs. The quotas are
// the environment's (the defaults: nothing sets them for the tests) unless a test gives its own.
const API = "http://lab.test/api/v1";
const TRPC = "http://lab.test/api/trpc";
const prefix = `quotas-integration ${randomUUID().slice(0, 8)}`;
const named = (suffix: string) => `${prefix} ${suffix}`;

type TrpcError = {
  error: { message: string; data: { code: string; httpStatus: number; issues: { path: string; message: string }[] | null } };
};
type RestError = { error: string; message: string; issues?: { path: string; message: string }[] };

let deps: Deps;
let close: () => Promise<void>;
const handlers = (d: Deps) => ({
  rest: createRestHandler({ router: appRouter, createContext: () => ({ deps: d }) }),
  trpc: createTrpcHandler({ router: appRouter, createContext: () => ({ deps: d }) }),
});

const run = (name: string, durationSeconds: number) => ({
  name,
  topology: { service: { replicas: 1, memoryMb: 64 } },
  workload: { endpoint: "hostname", vus: 1, durationSeconds },
});
const storedRuns = (name: string) => deps.db.run.count({ where: { name: { startsWith: name } } });
const storedExperiments = (name: string) => deps.db.experiment.count({ where: { name } });

/** 10 replicas counts × 20 repetitions of 1-hour runs: 200 runs, about 201 h. */
const hugeExperiment = (name: string): TExperimentCreateInput => ({
  name,
  base: { topology: { service: { replicas: 1, memoryMb: 64 } }, workload: { vus: 1, durationSeconds: 3600 } },
  sweep: [{ field: "topology.service.replicas", values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }],
  repetitions: 20,
});

const HUGE_MESSAGE =
  "this experiment would take about 201 h (200 runs × 3,600 s plus start-up and settle pauses); the lab allows at most 6 h per experiment (SCALELAB_MAX_EXPERIMENT_HOURS)";

beforeAll(async () => {
  ({ deps, close } = await openServiceDeps());
});

afterAll(async () => {
  await deps.db.experiment.deleteMany({ where: { name: { startsWith: prefix } } });
  await deps.db.run.deleteMany({ where: { name: { startsWith: prefix } } });
  await close();
});

describe("the experiment's maximum", () => {
  it("A 200-run experiment of 1-hour runs is refused by default with the limit named (422 over REST and tRPC), and nothing is created", async () => {
    expect(quotasOf(deps)).toEqual(DEFAULT_QUOTAS);
    const { rest, trpc } = handlers(deps);

    const name = named("huge rest");
    const res = await rest(post(`${API}/experiments`, JSON.stringify(hugeExperiment(name))));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: "quota_exceeded",
      message: HUGE_MESSAGE,
      issues: [{ path: "base.workload.durationSeconds", message: HUGE_MESSAGE }],
    } satisfies RestError);
    expect(await storedExperiments(name)).toBe(0);
    expect(await storedRuns(name)).toBe(0);

    const viaTrpc = named("huge trpc");
    const t = await trpc(post(`${TRPC}/experiments.create`, JSON.stringify(hugeExperiment(viaTrpc))));
    expect(t.status).toBe(422);
    const { error } = (await t.json()) as TrpcError;
    expect(error.message).toBe(HUGE_MESSAGE);
    expect(error.data).toMatchObject({
      code: "UNPROCESSABLE_CONTENT",
      issues: [{ path: "base.workload.durationSeconds", message: HUGE_MESSAGE }],
    });
    expect(await storedExperiments(viaTrpc)).toBe(0);
    expect(await storedRuns(viaTrpc)).toBe(0);

    // The form's preview says it before Start, on the same field.
    const preview = await trpc(post(`${TRPC}/experiments.preview`, JSON.stringify(hugeExperiment(named("huge preview")))));
    expect(preview.status).toBe(422);
    expect(((await preview.json()) as TrpcError).error.data.issues).toEqual([
      { path: "base.workload.durationSeconds", message: HUGE_MESSAGE },
    ]);
  });

  it("a preset run past the maximum is refused the same way, naming the repetitions when fewer would fit", async () => {
    const { rest } = handlers(deps);
    const experimentName = named("preset long");
    const res = await rest(
      post(
        `${API}/presets/cpu-limit-replicas/run`,
        JSON.stringify({ experimentName, repetitions: 20, patch: { workload: { durationSeconds: 600 } } }),
      ),
    );
    expect(res.status).toBe(422);
    const body = (await res.json()) as RestError;
    expect(body.error).toBe("quota_exceeded");
    expect(body.message).toMatch(
      /^this experiment would take about [\d.]+ h \(\d+ runs × 600 s plus start-up and settle pauses\); the lab allows at most 6 h per experiment/,
    );
    expect(body.issues?.[0]?.path).toBe("repetitions");
    expect(await storedExperiments(experimentName)).toBe(0);
    expect(await storedRuns(experimentName)).toBe(0);
  });
});

describe("the queue's maximum", () => {
  it("work that would take the queue beyond its maximum is a 429 naming the limit and what is queued, with Retry-After; what fits is taken", async () => {
    // An hour-long run in the queue, then a limit 1,000 s above what the queue holds now.
    const { rest: open } = handlers(deps);
    const first = await open(post(`${API}/runs`, JSON.stringify(run(named("hour 1"), 3600))));
    expect(first.status).toBe(201);
    const { id: firstId } = (await first.json()) as { id: string };
    const queued = await readQueue(deps.db);
    expect(queued.seconds).toBeGreaterThanOrEqual(3615);
    const limited: Deps = { ...deps, quotas: { ...DEFAULT_QUOTAS, maxQueueSeconds: queued.seconds + 1000 } };
    const { rest, trpc } = handlers(limited);

    const refused = await rest(post(`${API}/runs`, JSON.stringify(run(named("hour 2"), 3600))));
    expect(refused.status).toBe(429);
    // Another test file's short runs may join or leave the queue meanwhile: about 3,615 − 1,000 s.
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(2000);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThan(3200);
    const body = (await refused.json()) as RestError;
    expect(body.error).toBe("quota_exceeded");
    expect(body.message).toMatch(
      /^the queue already holds about [\d.]+ h of work \(\d+ runs? queued or running\) and this run would add about 1 h; the lab's queue holds at most [\d.]+ h of work \(SCALELAB_MAX_QUEUE_HOURS\): wait about \d+ min for it to drain, or cancel queued runs$/,
    );
    expect(await storedRuns(named("hour 2"))).toBe(0);

    const viaTrpc = await trpc(post(`${TRPC}/runs.create`, JSON.stringify(run(named("hour 3"), 3600))));
    expect(viaTrpc.status).toBe(429);
    expect(((await viaTrpc.json()) as TrpcError).error.data.code).toBe("TOO_MANY_REQUESTS");
    expect(await storedRuns(named("hour 3"))).toBe(0);

    const rerun = await rest(post(`${API}/runs/${firstId}/rerun`, null, {}));
    expect(rerun.status).toBe(429);
    expect(await storedRuns(named("hour 1"))).toBe(1);

    const experimentName = named("experiment over the queue");
    const experiment = await trpc(
      post(
        `${TRPC}/experiments.create`,
        JSON.stringify({ ...hugeExperiment(experimentName), sweep: undefined, repetitions: 2, base: run("", 600) }),
      ),
    );
    expect(experiment.status).toBe(429);
    expect(((await experiment.json()) as TrpcError).error.message).toContain("and this experiment would add about");
    expect(await storedExperiments(experimentName)).toBe(0);
    expect(await storedRuns(experimentName)).toBe(0);

    // A 5 s run (20 s with its start-up) still fits.
    const small = await rest(post(`${API}/runs`, JSON.stringify(run(named("small"), 5))));
    expect(small.status).toBe(201);
  });

  it("work larger than the whole queue may hold is a 422: waiting would not help", async () => {
    const { rest } = handlers({ ...deps, quotas: { ...DEFAULT_QUOTAS, maxQueueSeconds: 1800 } });
    const res = await rest(post(`${API}/runs`, JSON.stringify(run(named("never"), 3600))));
    expect(res.status).toBe(422);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(((await res.json()) as RestError).message).toBe(
      "this run would take about 1 h by itself; the lab's queue holds at most 30 min of work (SCALELAB_MAX_QUEUE_HOURS)",
    );
    expect(await storedRuns(named("never"))).toBe(0);
  });
});

describe("over-subscription", () => {
  it("POST /preview and the experiment's preview warn when the containers' CPU limits add up to more than the host's cores", async () => {
    const { rest } = handlers(deps);
    const host = await readHostBounds(deps.redis);
    const heavy = { topology: { service: { replicas: 2, cpus: host.cpus, memoryMb: 64 } }, workload: { vus: 1, durationSeconds: 5 } };
    const res = await rest(post(`${API}/preview`, JSON.stringify(heavy)));
    expect(res.status).toBe(200);
    const { warnings } = (await res.json()) as { warnings: { code: string; message: string }[] };
    expect(warnings).toEqual([
      {
        code: "cpu_oversubscribed",
        message: expect.stringMatching(
          new RegExp(
            `^the containers' CPU limits add up to [\\d.]+ cores on this ${host.cpus}-core host: they will share the cores, so the figures measure the sharing too$`,
          ),
        ),
      },
    ]);
    const light = await rest(post(`${API}/preview`, JSON.stringify(run("light", 5))));
    expect(((await light.json()) as { warnings: unknown[] }).warnings).toEqual([]);

    const experiment = await rest(
      post(`${API}/experiments/preview`, JSON.stringify({ name: named("preview"), base: heavy, variants: [{ name: "heavy", patch: {} }] })),
    );
    expect(experiment.status).toBe(200);
    expect(((await experiment.json()) as { warnings: { code: string; message: string }[] }).warnings).toEqual([
      { code: "cpu_oversubscribed", message: expect.stringContaining(`cores on this ${host.cpus}-core host`) },
    ]);
  });
});
