import { PlannedContainer } from "../components/types";
import { RunPlan } from "./plan";
import { DIAGRAM_EDGES, rolePresentation } from "../components/registry";
import { LOADGEN_ROLE, NETNS_ROLE, PROXY_ROLE } from "../names";

/**
 * The topology as a diagram: one box per container with its limits, laid out left to right along
 * the request path (load generator → balancer → replicas → downstream, broker and store), and the
 * edges between them. Pure layout; the dashboard draws it as SVG.
 */
export type DiagramNode = {
  id: string;
  role: string;
  label: string;
  /** The role's colour, as its component presents it. */
  color: string;
  /** "0.2 CPU · 256 MB" */
  limits: string;
  x: number;
  y: number;
};
export type DiagramEdge = { from: string; to: string; kind: "http" | "sync" | "async" | "query" };
/** A band of the diagram: the containers that ran on one of the engine's nodes (only when there were several). */
export type DiagramGroup = { name: string; label: string; y: number; height: number };
export type Diagram = { nodes: DiagramNode[]; edges: DiagramEdge[]; width: number; height: number; groups?: DiagramGroup[] };

/** Where a run's containers ran (the run's host facts): container name → node, and the nodes with their CPUs. */
export type DiagramPlacement = { containerNodes: Record<string, string>; nodes: readonly { name: string; cpus: number }[] };

/** The height of a group's heading above its boxes. */
export const GROUP_HEADER = 20;

export const NODE = { width: 150, height: 52, gapX: 56, gapY: 14, pad: 12 } as const;

const MB = 1024 * 1024;
const limitsOf = (c: PlannedContainer) =>
  [
    c.cpus !== undefined ? `${c.cpus} CPU` : "no CPU limit",
    c.memoryBytes !== undefined ? `${Math.round(c.memoryBytes / MB)} MB` : undefined,
  ]
    .filter(Boolean)
    .join(" · ");

function box(c: PlannedContainer, plan: RunPlan, col: number, y: number): DiagramNode {
  const proxied = plan.faultProxies.some((p) => c.name.endsWith(`-${p.target.role}-${p.target.index}`));
  return {
    id: c.name,
    role: c.role,
    label: rolePresentation(c.role).label === "hostname" ? c.hostname : c.title.replace(/^the /, ""),
    color: rolePresentation(c.role).color,
    limits: proxied ? `${limitsOf(c)} · fault proxy` : limitsOf(c),
    x: NODE.pad + col * (NODE.width + NODE.gapX),
    y,
  };
}

function edgesOf(plan: RunPlan, all: PlannedContainer[]): DiagramEdge[] {
  const ids = (role: string) => all.filter((c) => c.role === role).map((c) => c.name);
  const edges: DiagramEdge[] = [];
  const link = (from: string[], to: string[], kind: DiagramEdge["kind"]) => {
    for (const f of from) for (const t of to) edges.push({ from: f, to: t, kind });
  };
  // The load generator aims at the run's entry: the balancer, or without one the replicas (Docker's DNS spreads it).
  link(ids(LOADGEN_ROLE), ids(plan.entry.role), "http");
  for (const e of DIAGRAM_EDGES) link(ids(e.from), ids(e.to), e.kind);
  return edges;
}

/** Plumbing of a fault timeline, not parts of the topology: drawn as a note on their target's box. */
const PLUMBING = new Set([NETNS_ROLE, PROXY_ROLE]);

export function topologyDiagram(plan: RunPlan, placement?: DiagramPlacement): Diagram {
  const all = [...plan.loadgens, ...plan.containers].filter((c) => !PLUMBING.has(c.role));
  const nodeOf = (c: PlannedContainer) => placement?.containerNodes[c.name];
  const placedOn = [...new Set(all.map(nodeOf).filter((n): n is string => n !== undefined))];
  if (placement && placedOn.length > 1) return groupedDiagram(plan, all, placement);
  const columns = new Map<number, PlannedContainer[]>();
  // Columns the plan does not use (the balancer's, with kind none) are closed up.
  const used = [...new Set(all.map((c) => rolePresentation(c.role).column))].sort((a, b) => a - b);
  for (const c of all) {
    const col = used.indexOf(rolePresentation(c.role).column);
    columns.set(col, [...(columns.get(col) ?? []), c]);
  }
  const nodes: DiagramNode[] = [];
  let rows = 0;
  for (const [col, cs] of columns) {
    cs.sort((a, b) => (rolePresentation(a.role).row ?? 0) - (rolePresentation(b.role).row ?? 0));
    rows = Math.max(rows, cs.length);
    cs.forEach((c, row) => nodes.push(box(c, plan, col, NODE.pad + row * (NODE.height + NODE.gapY))));
  }
  const edges = edgesOf(plan, all);
  const width = NODE.pad * 2 + (Math.max(...columns.keys()) + 1) * NODE.width + Math.max(...columns.keys()) * NODE.gapX;
  const height = NODE.pad * 2 + rows * NODE.height + (rows - 1) * NODE.gapY;
  return { nodes, edges, width, height };
}

/**
 * The diagram with one band per node, in the order of the engine's nodes: within a band the
 * containers keep their columns along the request path, so a replica on node2 is drawn under
 * node2's heading in the replicas' column. A container without a node goes in a last band "?".
 */
function groupedDiagram(plan: RunPlan, all: PlannedContainer[], placement: DiagramPlacement): Diagram {
  const used = [...new Set(all.map((c) => rolePresentation(c.role).column))].sort((a, b) => a - b);
  const order = placement.nodes.map((n) => n.name);
  const bandOf = (c: PlannedContainer) => placement.containerNodes[c.name] ?? "?";
  const bands = [...new Set(all.map(bandOf))].sort(
    (a, b) => (order.indexOf(a) === -1 ? Infinity : order.indexOf(a)) - (order.indexOf(b) === -1 ? Infinity : order.indexOf(b)),
  );
  const nodes: DiagramNode[] = [];
  const groups: DiagramGroup[] = [];
  let y = NODE.pad;
  for (const band of bands) {
    const here = all.filter((c) => bandOf(c) === band);
    const columns = new Map<number, PlannedContainer[]>();
    for (const c of here) {
      const col = used.indexOf(rolePresentation(c.role).column);
      columns.set(col, [...(columns.get(col) ?? []), c]);
    }
    const rows = Math.max(...[...columns.values()].map((cs) => cs.length));
    for (const [col, cs] of columns) {
      cs.sort((a, b) => (rolePresentation(a.role).row ?? 0) - (rolePresentation(b.role).row ?? 0));
      cs.forEach((c, row) => nodes.push(box(c, plan, col, y + GROUP_HEADER + row * (NODE.height + NODE.gapY))));
    }
    const height = GROUP_HEADER + rows * NODE.height + (rows - 1) * NODE.gapY + NODE.gapY / 2;
    const cpus = placement.nodes.find((n) => n.name === band)?.cpus;
    groups.push({
      name: band,
      label: cpus === undefined ? band : `${band} · ${cpus} CPU${cpus === 1 ? "" : "s"}`,
      y: y - NODE.gapY / 4,
      height,
    });
    y += height + NODE.gapY;
  }
  const width = NODE.pad * 2 + used.length * NODE.width + (used.length - 1) * NODE.gapX;
  return { nodes, edges: edgesOf(plan, all), width, height: y - NODE.gapY + NODE.pad, groups };
}
