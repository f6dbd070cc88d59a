import { randomUUID } from "node:crypto";
import { removeEngine, saveEngine } from "@scalelab/db/engines";
import type { TEngineConfig } from "@scalelab/scenarios/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/env";
import { appRouter } from "../routers/_app";
import type { Deps } from "../runtime";
import { post, runBody } from "../testing";
import { openServiceDeps } from "../testing-services";
import { createRestHandler } from "../rest/handler";
import { listEngineViews, swarmConfig } from "./testing";

// Real Postgres, Redis and Docker. An engine pointing at the host's own engine as a Swarm manager
// must be listed unreachable (the host is no swarm manager). A cluster's listing is in
// engines-swarm.cluster.test.ts, which the suite runs with the test cluster up.
const env = getEnv();
const API = "http://lab.test/api/v1";
const suffix = randomUUID().slice(0, 6);
const notSwarm = `it-host-${suffix}`;
const refused = `it-refused-${suffix}`;
const prefix = `engines-integration ${suffix}`;
let deps: Deps;
let close: () => Promise<void>;
let rest: (req: Request) => Promise<Response>;

const save = (c: TEngineConfig) => saveEngine(deps.db, c.name, c.kind, c);
const config = swarmConfig;
const list = () => listEngineViews(rest, API);

beforeAll(async () => {
  ({ deps, close } = await openServiceDeps());
  rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }) });
  await save(config(notSwarm, `unix://${env.SCALELAB_DOCKER_SOCKET}`));
  // Port 1 on loopback: nothing listens, the connection is refused at once.
  await save(config(refused, "tcp://127.0.0.1:1"));
});

afterAll(async () => {
  for (const name of [notSwarm, refused]) await removeEngine(deps.db, name);
  await deps.db.run.deleteMany({ where: { name: { startsWith: prefix } } });
  await close();
});

describe("GET /api/v1/engines", () => {
  it("lists local first, as one node with the host's CPUs, then each stored engine", async () => {
    const engines = await list();
    expect(engines[0]).toMatchObject({ name: "local", kind: "docker", reachable: true, error: null });
    expect(engines[0]!.nodes).toEqual([expect.objectContaining({ name: "local", role: "manager", availability: "active" })]);
    expect(engines[0]!.cpus).toBeGreaterThan(0);
    expect(engines.map((e) => e.name)).toEqual(expect.arrayContaining([notSwarm, refused]));
  });

  it("an engine that is not a swarm manager, or does not answer, is listed unreachable with the reason, not a 500", async () => {
    const engines = await list();
    expect(engines.find((e) => e.name === notSwarm)).toEqual({
      name: notSwarm,
      kind: "swarm",
      reachable: false,
      error: expect.stringMatching(/not a swarm manager/i),
      cpus: 0,
      memoryBytes: 0,
      nodes: [],
    });
    expect(engines.find((e) => e.name === refused)).toMatchObject({ reachable: false, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it("tRPC engines.list answers the same", async () => {
    const caller = appRouter.createCaller({ deps });
    expect((await caller.engines.list({})).map((e) => e.name)).toEqual((await list()).map((e) => e.name));
  });
});

describe("a run's engine", () => {
  it("is local by default and shown on the run", async () => {
    const res = await rest(post(`${API}/runs`, JSON.stringify(runBody(1, `${prefix} local`))));
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const run = (await (await rest(new Request(`${API}/runs/${id}`))).json()) as { engine: string };
    expect(run.engine).toBe("local");
  });

  it("an unknown engine is a 422 naming engine; an unreachable one a 503 naming it; nothing is stored", async () => {
    const unknown = await rest(post(`${API}/runs`, JSON.stringify({ ...runBody(1, `${prefix} unknown`), engine: "nowhere" })));
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({
      error: "unprocessable",
      message: "engine nowhere is not known",
      issues: [{ path: "engine", message: expect.stringMatching(/^engine must be one of: local, .*it-host-/) }],
    });
    const down = await rest(post(`${API}/runs`, JSON.stringify({ ...runBody(1, `${prefix} down`), engine: refused })));
    expect(down.status).toBe(503);
    expect(((await down.json()) as { message: string }).message).toMatch(new RegExp(`^engine ${refused} is not reachable: .*ECONNREFUSED`));
    expect(await deps.db.run.count({ where: { name: { in: [`${prefix} unknown`, `${prefix} down`] } } })).toBe(0);
  });
});

describe("GET /runs/{id}/containers on an engine with nodes", () => {
  it("names each container's node from the run's host facts; on local none", async () => {
    const res = await rest(post(`${API}/runs`, JSON.stringify(runBody(2, `${prefix} nodes`))));
    const { id } = (await res.json()) as { id: string };
    const name = (c: string) => `sl-${id.slice(0, 8)}-${c}`;
    const sample = (t: number, container: string, role: string) => ({
      runId: id,
      t,
      container,
      role,
      cpuPct: 10,
      memBytes: 1,
      throttledPeriods: 0,
    });
    await deps.db.containerSample.createMany({ data: [sample(0, name("app-0"), "app"), sample(0, name("app-1"), "app")] });
    const containers = async () =>
      ((await (await rest(new Request(`${API}/runs/${id}/containers`))).json()) as { container: string; node?: string }[]).map(
        (c) => c.node,
      );
    expect(await containers()).toEqual([undefined, undefined]);
    await deps.db.run.update({
      where: { id },
      data: {
        host: {
          cpus: 4,
          memoryBytes: 1,
          kernel: "k",
          dockerVersion: "d",
          nodes: [
            { name: "node1", cpus: 2, memoryBytes: 1 },
            { name: "node2", cpus: 2, memoryBytes: 1 },
          ],
          containerNodes: { [name("app-0")]: "node1", [name("app-1")]: "node2" },
        },
      },
    });
    expect(await containers()).toEqual(["node1", "node2"]);
  });
});
