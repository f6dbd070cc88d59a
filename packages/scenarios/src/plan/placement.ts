import { TEngineNode, TPlacement } from "../contract/engines";
import { LOADGEN_ROLE } from "../names";

/** What placement needs of a planned container (PlannedContainer and the load step's generators have it). */
export type PlaceableContainer = {
  name: string;
  role: string;
  cpus?: number | undefined;
  memoryBytes?: number | undefined;
  /** The container whose network namespace it joins: it goes where that one goes. */
  networkOf?: string | undefined;
};

export type PlacementIssue = { path: string; message: string };

export type PlacementResult = { ok: true; nodes: Record<string, string> } | { ok: false; issues: PlacementIssue[] };

/** A node takes a run's containers when Swarm schedules on it: active and (when known) ready. */
export const nodeTakesContainers = (n: Pick<TEngineNode, "availability" | "state">): boolean =>
  n.availability === "active" && (n.state === undefined || n.state === "ready");

/** Containers that must share a node: a network holder and those that join it. */
type Unit = { names: string[]; role: string; cpus: number; memoryBytes: number; order: number };

function unitsOf(containers: readonly PlaceableContainer[]): Unit[] {
  const byName = new Map(containers.map((c) => [c.name, c]));
  const rootOf = (c: PlaceableContainer): string => {
    let cur = c;
    const seen = new Set<string>();
    while (cur.networkOf !== undefined && byName.has(cur.networkOf) && !seen.has(cur.name)) {
      seen.add(cur.name);
      cur = byName.get(cur.networkOf)!;
    }
    return cur.name;
  };
  const units = new Map<string, Unit & { joinerRole?: string }>();
  containers.forEach((c, order) => {
    const root = rootOf(c);
    let u = units.get(root);
    if (!u) {
      u = { names: [], role: byName.get(root)!.role, cpus: 0, memoryBytes: 0, order };
      units.set(root, u);
    }
    u.names.push(c.name);
    u.cpus += c.cpus ?? 0;
    u.memoryBytes += c.memoryBytes ?? 0;
    // A holder stands for what joins it: the unit is a replica (app), not a netns, and takes the
    // replica's place in the order (a holder planned first must not move app-1 before app-0).
    if (c.name !== root && u.joinerRole === undefined) {
      u.joinerRole = c.role;
      u.order = order;
    }
  });
  return [...units.values()].map(({ joinerRole, ...u }) => ({ ...u, role: joinerRole ?? u.role })).sort((a, b) => a.order - b.order);
}

/**
 * Maps each container's name to the node it runs on, or says why the placement cannot be met.
 * `spread` (the default): a role's containers on different nodes, each to the node with the fewest
 * of that role, then the least loaded (CPU limits placed against its CPUs), then the node's order;
 * more containers than nodes wrap. `pack`: the first node (in the given order) whose CPUs and
 * memory still fit the container, else the least loaded. `pin`: every container of a role on the
 * named node. `loadgen.separate`: the load generators only on nodes with none of the system under
 * test, spread over them. Containers that join another's network go where their holder goes.
 */
export function placeContainers(
  containers: readonly PlaceableContainer[],
  nodes: readonly TEngineNode[],
  placement: TPlacement | undefined,
): PlacementResult {
  const strategy = placement?.strategy ?? "spread";
  const pin = placement?.pin ?? {};
  const separate = placement?.loadgen?.separate ?? false;
  const issues: PlacementIssue[] = [];
  const usable = nodes.filter(nodeTakesContainers);
  if (usable.length === 0) {
    return {
      ok: false,
      issues: [{ path: "engine", message: `engine has no node that takes containers (active and ready): ${describe(nodes)}` }],
    };
  }
  for (const [role, node] of Object.entries(pin)) {
    const n = nodes.find((x) => x.name === node);
    const path = `topology.placement.pin.${role}`;
    if (!n)
      issues.push({
        path,
        message: `${path}: node ${node} is not a node of this engine (its nodes: ${nodes.map((x) => x.name).join(", ")})`,
      });
    else if (!nodeTakesContainers(n))
      issues.push({
        path,
        message: `${path}: node ${node} takes no containers (${n.availability}, ${n.state ?? "ready"}): pick an active, ready node`,
      });
  }
  if (issues.length > 0) return { ok: false, issues };

  const units = unitsOf(containers);
  const load = new Map(usable.map((n) => [n.name, { cpus: 0, memoryBytes: 0, roles: new Map<string, number>() }]));
  const placed: Record<string, string> = {};
  const put = (u: Unit, node: string) => {
    const l = load.get(node)!;
    l.cpus += u.cpus;
    l.memoryBytes += u.memoryBytes;
    l.roles.set(u.role, (l.roles.get(u.role) ?? 0) + 1);
    for (const name of u.names) placed[name] = node;
  };
  const share = (n: TEngineNode) => load.get(n.name)!.cpus / Math.max(n.cpus, 1e-9);
  const spreadPick = (u: Unit, candidates: readonly TEngineNode[]) =>
    [...candidates].sort(
      (a, b) => (load.get(a.name)!.roles.get(u.role) ?? 0) - (load.get(b.name)!.roles.get(u.role) ?? 0) || share(a) - share(b),
    )[0]!;
  const packPick = (u: Unit, candidates: readonly TEngineNode[]) =>
    candidates.find((n) => {
      const l = load.get(n.name)!;
      return l.cpus + u.cpus <= n.cpus + 1e-9 && l.memoryBytes + u.memoryBytes <= n.memoryBytes;
    }) ?? [...candidates].sort((a, b) => share(a) - share(b))[0]!;
  const pick = (u: Unit, candidates: readonly TEngineNode[], how: "spread" | "pack") =>
    how === "spread" ? spreadPick(u, candidates) : packPick(u, candidates);

  const isLoadgen = (u: Unit) => u.role === LOADGEN_ROLE;
  // Pinned ones first, so that the others spread or pack around them.
  for (const u of units.filter((x) => pin[x.role] !== undefined)) put(u, pin[u.role]!);
  // With separate generators, the system keeps off a node the generators are pinned to.
  const genNode = separate ? pin[LOADGEN_ROLE] : undefined;
  const sutCandidates = usable.filter((n) => n.name !== genNode);
  for (const u of units.filter((x) => pin[x.role] === undefined && !isLoadgen(x))) {
    put(u, pick(u, sutCandidates.length > 0 ? sutCandidates : usable, strategy).name);
  }

  const sutNodes = new Set(units.filter((u) => !isLoadgen(u)).map((u) => placed[u.names[0]!]!));
  if (separate) {
    const free = usable.filter((n) => !sutNodes.has(n.name));
    const pinnedNode = pin[LOADGEN_ROLE];
    if (pinnedNode !== undefined && sutNodes.has(pinnedNode)) {
      return {
        ok: false,
        issues: [
          {
            path: "topology.placement.loadgen.separate",
            message: `topology.placement.loadgen.separate: the load generators are pinned to node ${pinnedNode}, which also runs the system under test`,
          },
        ],
      };
    }
    const generators = units.filter((x) => isLoadgen(x) && pin[x.role] === undefined);
    if (generators.length > 0 && free.length === 0) {
      return {
        ok: false,
        issues: [
          {
            path: "topology.placement.loadgen.separate",
            message: `topology.placement.loadgen.separate needs a node free of the system under test, which is placed on ${[...sutNodes].join(", ")}: all ${usable.length} node(s) that take containers; pin its roles to fewer nodes, use pack, or add a node`,
          },
        ],
      };
    }
    for (const u of generators) put(u, spreadPick(u, free).name);
  } else {
    for (const u of units.filter((x) => isLoadgen(x) && pin[x.role] === undefined)) put(u, pick(u, usable, strategy).name);
  }
  return { ok: true, nodes: placed };
}

function describe(nodes: readonly TEngineNode[]): string {
  return nodes.length === 0 ? "it lists no nodes" : nodes.map((n) => `${n.name} ${n.availability}/${n.state ?? "ready"}`).join(", ");
}
