import { readFileSync } from "node:fs";
import { listEngines, findEngine } from "@scalelab/db/engines";
import {
  engineClientOptions,
  engineTotals,
  swarmNodeView,
  type TSwarmNodeJson,
  LOCAL_ENGINE,
  ZEngineConfig,
  type TEngineConfig,
  type TEngineNode,
  type TEngineNodeView,
  type TEngineView,
} from "@scalelab/scenarios/contract";
import Docker from "dockerode";
import { AppError } from "../errors";
import type { Deps } from "../runtime";
import { readHostBounds } from "../host-bounds";

/** How long a listing waits for an engine's manager: the list and a run's validation must answer quickly. */
export const ENGINE_TIMEOUT_MS = 3_000;

/** A dockerode client for one of the engine's endpoints (its manager by default), with its TLS material when it has some. */
export function engineDocker(config: TEngineConfig, endpoint: string = config.manager): Docker {
  return new Docker({ ...engineClientOptions(endpoint, config.tlsDir, readFileSync), timeout: ENGINE_TIMEOUT_MS });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);

/** A stored engine's nodes read live from its manager, or why they could not be. */
export async function readEngine(config: TEngineConfig): Promise<TEngineView> {
  const base = { name: config.name, kind: "swarm" as const };
  try {
    const docker = engineDocker(config);
    const nodes = (
      (await withTimeout(docker.listNodes(), ENGINE_TIMEOUT_MS, `engine ${config.name}'s manager ${config.manager}`)) as TSwarmNodeJson[]
    )
      .map(swarmNodeView)
      .sort((a, b) => a.name.localeCompare(b.name));
    return { ...base, reachable: true, error: null, ...engineTotals(nodes), nodes };
  } catch (err) {
    return { ...base, reachable: false, error: reason(err), cpus: 0, memoryBytes: 0, nodes: [] };
  }
}

/** The lab's own engine, from the host facts the worker records (the web's machine until it has). */
export async function localEngine(deps: Pick<Deps, "redis">): Promise<TEngineView> {
  const host = await readHostBounds(deps.redis);
  const node: TEngineNodeView = {
    name: LOCAL_ENGINE,
    role: "manager",
    cpus: host.cpus,
    memoryBytes: host.memoryBytes,
    state: "ready",
    availability: "active",
    address: "",
  };
  return {
    name: LOCAL_ENGINE,
    kind: "docker",
    reachable: true,
    error: null,
    cpus: host.cpus,
    memoryBytes: host.memoryBytes,
    nodes: [node],
  };
}

function parseStored(row: { name: string; config: unknown }): TEngineConfig | { name: string; invalid: string } {
  const c = ZEngineConfig.safeParse(row.config);
  return c.success ? c.data : { name: row.name, invalid: c.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
}

/** `local` and every stored engine, each stored one asked at once (an unreachable one is listed with its error). */
export async function engineViews(deps: Pick<Deps, "db" | "redis">): Promise<TEngineView[]> {
  const rows = await listEngines(deps.db);
  const stored = await Promise.all(
    rows.map(parseStored).map((c) =>
      "invalid" in c
        ? Promise.resolve<TEngineView>({
            name: c.name,
            kind: "swarm",
            reachable: false,
            error: `its stored config is invalid (${c.invalid}): add it again with lab engine add`,
            cpus: 0,
            memoryBytes: 0,
            nodes: [],
          })
        : readEngine(c),
    ),
  );
  return [await localEngine(deps), ...stored];
}

/**
 * The nodes a run on `engine` is validated against: `null` for the lab's own engine (validated as
 * one host); a stored engine's nodes read live. Unknown: 422 naming `engine`; unreachable: 503.
 */
export async function engineNodes(deps: Pick<Deps, "db" | "redis">, engine: string): Promise<TEngineNode[] | null> {
  if (engine === LOCAL_ENGINE) return null;
  const row = await findEngine(deps.db, engine);
  if (!row) {
    const names = (await listEngines(deps.db)).map((r) => r.name);
    throw new AppError("unprocessable", `engine ${engine} is not known`, [
      {
        path: "engine",
        message: `engine must be one of: ${[LOCAL_ENGINE, ...names].join(", ")} (GET /api/v1/engines lists them; a Swarm cluster is added on the lab's host with lab engine add, the test cluster swarm-local with bash scripts/swarm.sh up)`,
      },
    ]);
  }
  const config = parseStored(row);
  if ("invalid" in config)
    throw new AppError("unavailable", `engine ${engine}'s stored config is invalid (${config.invalid}): add it again with lab engine add`);
  const view = await readEngine(config);
  if (!view.reachable) throw new AppError("unavailable", `engine ${engine} is not reachable: ${view.error}`);
  // Placement uses only the nodes the config gives an endpoint for (the worker reaches no other).
  const configured = new Set(config.nodes.map((n) => n.name));
  return view.nodes
    .filter((n) => configured.has(n.name))
    .map((n) => ({ name: n.name, cpus: n.cpus, memoryBytes: n.memoryBytes, availability: n.availability, state: n.state }));
}
