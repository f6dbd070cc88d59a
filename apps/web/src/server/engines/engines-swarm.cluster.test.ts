import { randomUUID } from "node:crypto";
import { removeEngine, saveEngine } from "@scalelab/db/engines";
import type { TEngineConfig } from "@scalelab/scenarios/contract";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/env";
import { appRouter } from "../routers/_app";
import type { Deps } from "../runtime";
import { post, runBody } from "../testing";
import { openServiceDeps } from "../testing-services";
import { createRestHandler } from "../rest/handler";
import { listEngineViews, swarmConfig } from "./testing";

// The engines' listing and a run's validation against a real Swarm cluster: the test cluster of
// `bash scripts/swarm.sh up` (scripts/test.sh's Swarm step runs this file with it up; the web's
// other integration files run without it). No cluster fails the file, naming the command.
const env = getEnv();
const API = "http://lab.test/api/v1";
const suffix = randomUUID().slice(0, 6);
const cluster = `it-swarm-${suffix}`;
const prefix = `engines-swarm ${suffix}`;
let deps: Deps;
let close: () => Promise<void>;
let rest: (req: Request) => Promise<Response>;
let clusterNodes: { name: string; endpoint: string }[];

const save = (c: TEngineConfig) => saveEngine(deps.db, c.name, c.kind, c);
const config = swarmConfig;
const list = () => listEngineViews(rest, API);

/** The nodes of the test cluster scripts/swarm.sh starts (labelled scalelab.cluster=swarm-local), by hostname. */
async function swarmNodes(): Promise<{ name: string; endpoint: string }[]> {
  const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
  const found = await docker.listContainers({ filters: { label: ["scalelab.cluster=swarm-local", "scalelab.swarm-role=node"] } });
  return found
    .map((c) => ({
      name: (c.Names[0] ?? "").replace(/^\/scalelab-swarm-/, ""),
      endpoint: `tcp://${Object.values(c.NetworkSettings.Networks)[0]?.IPAddress ?? ""}:2375`,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

beforeAll(async () => {
  clusterNodes = await swarmNodes();
  if (clusterNodes.length === 0) throw new Error("no test cluster runs: start one with `bash scripts/swarm.sh up`");
  ({ deps, close } = await openServiceDeps());
  rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }) });
});

afterAll(async () => {
  if (!deps) return;
  await removeEngine(deps.db, cluster);
  await deps.db.run.deleteMany({ where: { name: { startsWith: prefix } } });
  await close();
});

describe("GET /api/v1/engines with a Swarm cluster", () => {
  it("a cluster from scripts/swarm.sh is listed with its nodes, CPUs and memory", async () => {
    await save(config(cluster, clusterNodes[0]!.endpoint, clusterNodes));
    const view = (await list()).find((e) => e.name === cluster)!;
    expect(view).toMatchObject({ kind: "swarm", reachable: true, error: null });
    expect(view.nodes.map((n) => n.name)).toEqual(clusterNodes.map((n) => n.name));
    expect(view.nodes[0]).toMatchObject({ role: "manager", state: "ready", availability: "active" });
    for (const n of view.nodes) {
      expect(n.cpus).toBeGreaterThan(0);
      expect(n.memoryBytes).toBeGreaterThan(0);
      expect(n.address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    }
    expect(view.cpus).toBe(view.nodes.reduce((s, n) => s + n.cpus, 0));

    // A run on it is validated against its nodes: a pin to a node it lacks names the field.
    const body = {
      ...runBody(2, `${prefix} pin`),
      engine: cluster,
      topology: { service: { replicas: 2, memoryMb: 64 }, placement: { pin: { app: "node9" } } },
    };
    const res = await rest(post(`${API}/runs`, JSON.stringify(body)));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      issues: [{ path: "topology.placement.pin.app", message: expect.stringContaining("node node9 is not a node of this engine") }],
    });
    const tooBig = {
      ...runBody(2, `${prefix} cpus`),
      engine: cluster,
      topology: { service: { replicas: 2, memoryMb: 64, cpus: view.nodes[0]!.cpus + 1 } },
    };
    const big = await rest(post(`${API}/runs`, JSON.stringify(tooBig)));
    expect(await big.json()).toMatchObject({
      issues: [
        {
          path: "topology.service.cpus",
          message: expect.stringMatching(/^service.cpus must be between 0.05 and \d+ \(node node\d has \d+ CPUs\)$/),
        },
      ],
    });
  });
});
