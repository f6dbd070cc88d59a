import { runRoles } from "@scalelab/scenarios/components";
import { LOCAL_ENGINE, ZRunCreate, type TEngineView, type TRunCreateInput } from "@scalelab/scenarios/contract";
import { nodeTakesContainers } from "@scalelab/scenarios/plan";
import { formatBytes } from "./format";
import type { HostBounds } from "./run-form";

const cpus = (n: number) => `${n} CPU${n === 1 ? "" : "s"}`;

/** An engine as the form's select names it: its nodes and CPUs, or why it cannot take a run now. */
export function engineOptionLabel(e: TEngineView): string {
  if (e.name === LOCAL_ENGINE) return `local — this host, ${cpus(e.cpus)}, ${formatBytes(e.memoryBytes)}`;
  if (!e.reachable) return `${e.name} — unreachable: ${e.error ?? "no answer"}`;
  const nodes = e.nodes.map((n) => `${n.name} ${cpus(n.cpus)}${nodeTakesContainers(n) ? "" : ` (${n.availability}, ${n.state})`}`);
  return `${e.name} — ${e.nodes.length} node${e.nodes.length === 1 ? "" : "s"}: ${nodes.join(", ")}`;
}

/**
 * The bounds the form's number hints give on the chosen engine: the lab's host on local, else the
 * largest CPUs and memory of the nodes that take containers (a container fits the largest node;
 * the server checks it against the node it is placed on). Undefined while unknown.
 */
export function engineBounds(
  engines: readonly TEngineView[] | undefined,
  engine: string,
  host: HostBounds | undefined,
): HostBounds | undefined {
  if (engine === LOCAL_ENGINE) return host;
  const nodes = engines?.find((e) => e.name === engine)?.nodes.filter(nodeTakesContainers) ?? [];
  if (nodes.length === 0) return undefined;
  return { cpus: Math.max(...nodes.map((n) => n.cpus)), memoryBytes: Math.max(...nodes.map((n) => n.memoryBytes)) };
}

/** The roles a pin can name for the run on screen (its containers' roles), in the registry's order; empty while the run is invalid. */
export function pinnableRoles(body: TRunCreateInput): string[] {
  const run = ZRunCreate.safeParse({ ...body, topology: { ...body.topology, placement: undefined }, faults: [] });
  if (!run.success) return [];
  return [
    ...new Set(
      runRoles(run.data)
        .filter((r) => r.count > 0)
        .map((r) => r.role),
    ),
  ];
}
