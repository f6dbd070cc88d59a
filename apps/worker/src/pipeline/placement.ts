import { findEngine } from "@scalelab/db/engines";
import { Db } from "@scalelab/db";
import { LOCAL_ENGINE, ZEngineConfig, TEngineConfig, TEngineNode, THostFacts, TPlacement } from "@scalelab/scenarios/contract";
import { placeContainers, PlaceableContainer } from "@scalelab/scenarios/plan";

/**
 * The worker's side of engines and placement (issue 18): the config of the engine a run names, the
 * node of each of its containers (@scalelab/scenarios/plan placeContainers), and what the run
 * records of them in its host facts (`nodes`, `containerNodes`), which the run page groups by.
 */

/** The stored config of the run's engine; null for the lab's own (`local`). A name no longer stored, or a config no longer valid, fails the run with why. */
export async function engineConfig(db: Db, engine: string): Promise<TEngineConfig | null> {
  if (engine === LOCAL_ENGINE) return null;
  const row = await findEngine(db, engine);
  if (!row) throw new Error(`engine ${engine} is not known to the lab any more (lab engine list); the run cannot start`);
  const config = ZEngineConfig.safeParse(row.config);
  if (!config.success) {
    throw new Error(
      `engine ${engine}'s stored config is invalid (${config.error.issues.map((i) => i.message).join("; ")}): add it again with lab engine add`,
    );
  }
  return config.data;
}

/**
 * Each container with the node it goes to. On `local` (no `nodes`) everything is on its one node
 * "local"; on a Swarm engine placement decides, and a placement that cannot be met (a pinned node
 * gone or drained since the run was accepted) fails the run with placement's own messages.
 */
export function placeRun<T extends PlaceableContainer>(
  containers: readonly T[],
  nodes: readonly TEngineNode[] | null,
  placement: TPlacement | undefined,
): (T & { node: string })[] {
  if (nodes === null) return containers.map((c) => ({ ...c, node: LOCAL_ENGINE }));
  const placed = placeContainers(containers, nodes, placement);
  if (!placed.ok) throw new Error(`the run's containers cannot be placed: ${placed.issues.map((i) => i.message).join("; ")}`);
  return containers.map((c) => ({ ...c, node: placed.nodes[c.name]! }));
}

/** What the run records of its engine in its host facts: the engine, its nodes with their CPUs and memory, and each container's node. */
export function runNodesFacts(
  engine: string,
  nodes: readonly Pick<TEngineNode, "name" | "cpus" | "memoryBytes">[],
  placed: readonly { name: string; node: string }[],
): Pick<THostFacts, "engine" | "nodes" | "containerNodes"> {
  return {
    engine,
    nodes: nodes.map(({ name, cpus, memoryBytes }) => ({ name, cpus, memoryBytes })),
    containerNodes: Object.fromEntries(placed.map((c) => [c.name, c.node])),
  };
}
