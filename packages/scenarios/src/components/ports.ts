import { PlannedContainer } from "./types";

/**
 * The container's ports the worker opens connections to: those it takes the run's connections on,
 * its ready probes', its figures endpoint's and `publish`; sorted, each once. On a cluster, where the
 * worker cannot reach a container's overlay address, these are the ports published on its node.
 */
export function dialedPorts(c: Pick<PlannedContainer, "ports" | "ready" | "stats" | "publish">): number[] {
  const ports = new Set<number>([...(c.ports ?? []), ...(c.publish ?? [])]);
  for (const p of c.ready) if (p.kind !== "log") ports.add(p.port);
  if (c.stats) ports.add(c.stats.port);
  return [...ports].sort((a, b) => a - b);
}
