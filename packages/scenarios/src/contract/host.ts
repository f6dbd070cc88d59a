import { z } from "zod";
import { runRoles } from "../components/registry";
import { LIMITS } from "./fields";
import { THostFacts } from "./results";
import { TRunCreate } from "./run";
import { LOADGEN_ROLE, SERVICE_ROLE } from "../names";
import { nodeTakesContainers, placeContainers, PlaceableContainer } from "../plan/placement";
import { LOCAL_ENGINE, TEngineNode } from "./engines";

export type FieldIssue = { path: string; message: string };

const MB = 1024 * 1024;

/**
 * Bounds that depend on the Docker host the run will execute on, over the roles the run's
 * components declare (their CPU limits, their memory). Returns one issue per offending field,
 * naming the field and the allowed range; an empty list means the run fits.
 */
/** Leave a quarter of the host for the control plane, the balancer and the load generator. */
function memoryBudget(host: Pick<THostFacts, "memoryBytes">): { hostMb: number; budgetMb: number } {
  const hostMb = Math.floor(host.memoryBytes / MB);
  return { hostMb, budgetMb: Math.floor(hostMb * 0.75) };
}

const othersMb = (roles: readonly { role: string; count: number; memoryMb?: number }[]) =>
  roles.filter((r) => r.role !== SERVICE_ROLE).reduce((sum, r) => sum + r.count * (r.memoryMb ?? 0), 0);

/** The most memory one replica of the service may have on this host, beside the run's other components. */
function serviceMemoryMax(run: TRunCreate, host: Pick<THostFacts, "memoryBytes">): number {
  const roles = runRoles(run).filter((r) => r.count > 0 && r.role !== LOADGEN_ROLE);
  return Math.max(LIMITS.memoryMb.min, Math.floor((memoryBudget(host).budgetMb - othersMb(roles)) / run.topology.service.replicas));
}

/**
 * The largest value this host allows for a field, where the host bounds it more than the schema
 * does (a form's hint, "0.05–2" rather than "0.05–64"): every CPU limit and the load generator's
 * CPU (the host's CPUs), the service's memory per replica (its share of the run's memory budget,
 * as validateAgainstHost computes it, when the run is known), any other memory (the whole budget).
 * Undefined for a field the host does not bound.
 */
export function hostMax(path: string, host: Pick<THostFacts, "cpus" | "memoryBytes">, run?: TRunCreate): number | undefined {
  if (path === "workload.loadgenCpus" || (path.startsWith("topology.") && path.endsWith(".cpus"))) return host.cpus;
  if (path === "topology.service.memoryMb" && run) return serviceMemoryMax(run, host);
  if (path.startsWith("topology.") && path.endsWith(".memoryMb")) return memoryBudget(host).budgetMb;
  return undefined;
}

export function validateAgainstHost(run: TRunCreate, host: Pick<THostFacts, "cpus" | "memoryBytes">): FieldIssue[] {
  const issues: FieldIssue[] = [];
  // On the lab's own engine everything is on its one node, "local": a pin elsewhere or separate load generators cannot be met.
  if (run.topology.placement) {
    const local = { name: LOCAL_ENGINE, cpus: host.cpus, memoryBytes: host.memoryBytes, availability: "active" };
    const placed = placeContainers(roleContainers(run), [local], run.topology.placement);
    if (!placed.ok) issues.push(...placed.issues);
  }
  const roles = runRoles(run).filter((r) => r.count > 0 && r.role !== LOADGEN_ROLE);
  const cpuRange = `${LIMITS.cpus.min} and ${host.cpus} (this host has ${host.cpus} CPUs)`;
  const named = new Set<string>();
  for (const r of roles) {
    if (r.cpus === undefined || r.cpus <= host.cpus || named.has(r.path)) continue;
    named.add(r.path);
    issues.push({ path: `${r.path}.cpus`, message: `${r.path.replace(/^topology\./, "")}.cpus must be between ${cpuRange}` });
  }
  if (run.workload.loadgenCpus > host.cpus) {
    issues.push({
      path: "workload.loadgenCpus",
      message: `workload.loadgenCpus must be between ${LIMITS.loadgenCpus.min} and ${host.cpus} (this host has ${host.cpus} CPUs)`,
    });
  }

  const { hostMb, budgetMb } = memoryBudget(host);
  const service = run.topology.service;
  const others = othersMb(roles);
  const perReplicaMax = serviceMemoryMax(run, host);
  if (service.memoryMb * service.replicas + others > budgetMb) {
    const what = others > 0 ? ` (the other components take ${others} MB)` : "";
    issues.push({
      path: "topology.service.memoryMb",
      message: `service.memoryMb must be between ${LIMITS.memoryMb.min} and ${perReplicaMax} for ${service.replicas} replica(s)${what} (this host has ${hostMb} MB; the run's containers may use at most ${budgetMb} MB together)`,
    });
  }
  return issues;
}

export const RUN_WARNING_CODES = ["cpu_oversubscribed"] as const;

/** Something the lab accepts but says before the run starts: the run will measure less than its definition suggests. */
export const ZRunWarning = z.object({
  code: z.enum(RUN_WARNING_CODES).describe("cpu_oversubscribed: the containers' CPU limits add up to more than the host's cores"),
  message: z.string(),
});
export type TRunWarning = z.infer<typeof ZRunWarning>;

/** The cores the run's containers may use together: each role's CPU limit times its count, the load generators' included (a container without a limit is not counted). */
export function cpuLimitsTotal(run: TRunCreate): number {
  const total = runRoles(run).reduce((sum, r) => sum + (r.cpus === undefined ? 0 : r.cpus * r.count), 0);
  return Math.round(total * 1000) / 1000;
}

const cores = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

/** What the run should know before it starts on this host: its containers' CPU limits beyond the host's cores. */
export function runWarnings(run: TRunCreate, host: Pick<THostFacts, "cpus">): TRunWarning[] {
  const total = cpuLimitsTotal(run);
  if (total <= host.cpus) return [];
  return [
    {
      code: "cpu_oversubscribed",
      message: `the containers' CPU limits add up to ${cores(total)} cores on this ${cores(host.cpus)}-core host: they will share the cores, so the figures measure the sharing too`,
    },
  ];
}

/**
 * The containers of a run as placement sees them, known without planning: each role's count,
 * CPU limit and memory (`<role>-<i>`). Network holders and fault proxies are left out: they add no
 * limit and go where their container goes.
 */
export function roleContainers(run: TRunCreate): PlaceableContainer[] {
  return runRoles(run)
    .filter((r) => r.count > 0)
    .flatMap((r) =>
      Array.from({ length: r.count }, (_, i) => ({
        name: `${r.role}-${i}`,
        role: r.role,
        cpus: r.cpus,
        memoryBytes: r.memoryMb === undefined ? undefined : r.memoryMb * MB,
      })),
    );
}

const roleOf = (name: string) => name.slice(0, name.lastIndexOf("-"));

/**
 * Host validation on an engine with several nodes (or one remote node): the run's containers are
 * placed as the worker will place them (plan/placement.ts), then every container's CPU limit must
 * fit the node it is on, and the memory of the containers on a node its budget (three quarters of
 * it, as on one host). Placement's own issues (a pinned node missing or drained, no node free for
 * separate load generators) come first.
 */
export function validateAgainstNodes(run: TRunCreate, nodes: readonly TEngineNode[]): FieldIssue[] {
  const containers = roleContainers(run);
  const placed = placeContainers(containers, nodes, run.topology.placement);
  if (!placed.ok) return placed.issues;
  const roles = runRoles(run).filter((r) => r.count > 0);
  const declOf = new Map(roles.map((r) => [r.role, r]));
  const issues: FieldIssue[] = [];
  const named = new Set<string>();
  for (const c of containers) {
    const n = nodes.find((x) => x.name === placed.nodes[c.name])!;
    const r = declOf.get(c.role)!;
    if (c.cpus === undefined || c.cpus <= n.cpus) continue;
    const path = r.role === LOADGEN_ROLE ? "workload.loadgenCpus" : `${r.path}.cpus`;
    if (named.has(path)) continue;
    named.add(path);
    const min = r.role === LOADGEN_ROLE ? LIMITS.loadgenCpus.min : LIMITS.cpus.min;
    issues.push({
      path,
      message: `${path.replace(/^topology\./, "")} must be between ${min} and ${n.cpus} (node ${n.name} has ${n.cpus} CPUs)`,
    });
  }
  for (const n of nodes) {
    const here = containers.filter((c) => placed.nodes[c.name] === n.name);
    const { hostMb, budgetMb } = memoryBudget(n);
    const usedMb = here.reduce((s, c) => s + (c.memoryBytes ?? 0) / MB, 0);
    if (usedMb <= budgetMb) continue;
    const replicasHere = here.filter((c) => c.role === SERVICE_ROLE).length;
    const othersHere = Math.round(usedMb - replicasHere * run.topology.service.memoryMb);
    const path =
      replicasHere > 0 ? "topology.service.memoryMb" : `${declOf.get(roleOf(here.find((c) => c.memoryBytes)!.name))!.path}.memoryMb`;
    if (named.has(path)) continue;
    named.add(path);
    const what = othersHere > 0 ? ` beside ${othersHere} MB of other containers` : "";
    const max =
      replicasHere > 0
        ? `${LIMITS.memoryMb.min} and ${Math.max(LIMITS.memoryMb.min, Math.floor((budgetMb - othersHere) / replicasHere))} for ${replicasHere} replica(s) on it${what}`
        : `${LIMITS.memoryMb.min} and ${budgetMb}`;
    issues.push({
      path,
      message: `${path.replace(/^topology\./, "")} must be between ${max} (node ${n.name} has ${hostMb} MB; the containers placed on it may use at most ${budgetMb} MB together)`,
    });
  }
  return issues;
}

/** The largest value any node of the engine allows for a field (the form's hint on a remote engine). */
export function nodesMax(path: string, nodes: readonly TEngineNode[]): number | undefined {
  const usable = nodes.filter(nodeTakesContainers);
  if (usable.length === 0) return undefined;
  return hostMax(path, { cpus: Math.max(...usable.map((n) => n.cpus)), memoryBytes: Math.max(...usable.map((n) => n.memoryBytes)) });
}

/** The cpu_oversubscribed warning per node: where the CPU limits placed on a node add up to more than its cores. */
export function nodeWarnings(run: TRunCreate, nodes: readonly TEngineNode[]): TRunWarning[] {
  const containers = roleContainers(run);
  const placed = placeContainers(containers, nodes, run.topology.placement);
  if (!placed.ok) return [];
  return nodes.flatMap((n) => {
    const total =
      Math.round(containers.filter((c) => placed.nodes[c.name] === n.name).reduce((s, c) => s + (c.cpus ?? 0), 0) * 1000) / 1000;
    if (total <= n.cpus) return [];
    return [
      {
        code: "cpu_oversubscribed" as const,
        message: `the CPU limits of the containers placed on node ${n.name} add up to ${cores(total)} cores on its ${cores(n.cpus)} cores: they will share them, so the figures measure the sharing too`,
      },
    ];
  });
}
