import type { TEngineConfig, TEngineView } from "@scalelab/scenarios/contract";
import { expect } from "vitest";

/** A stored Swarm engine's config for the engines' tests: its manager, its nodes (by default one, node1, at the manager), no TLS, no registry. */
export const swarmConfig = (name: string, manager: string, nodes = [{ name: "node1", endpoint: manager }]): TEngineConfig => ({
  name,
  kind: "swarm",
  manager,
  nodes,
  tlsDir: null,
  registry: null,
  machines: "auto",
});

/** GET /api/v1/engines through the REST handler: must be a 200. */
export async function listEngineViews(rest: (req: Request) => Promise<Response>, api: string): Promise<TEngineView[]> {
  const res = await rest(new Request(`${api}/engines`));
  expect(res.status).toBe(200);
  return (await res.json()) as TEngineView[];
}
