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
export type Diagram = { nodes: DiagramNode[]; edges: DiagramEdge[]; width: number; height: number };

export const NODE = { width: 150, height: 52, gapX: 56, gapY: 14, pad: 12 } as const;

const MB = 1024 * 1024;
const limitsOf = (c: PlannedContainer) =>
  [
    c.cpus !== undefined ? `${c.cpus} CPU` : "no CPU limit",
    c.memoryBytes !== undefined ? `${Math.round(c.memoryBytes / MB)} MB` : undefined,
  ]
    .filter(Boolean)
    .join(" · ");

/** Plumbing of a fault timeline, not parts of the topology: drawn as a note on their target's box. */
const PLUMBING = new Set([NETNS_ROLE, PROXY_ROLE]);

export function topologyDiagram(plan: RunPlan): Diagram {
  const all = [...plan.loadgens, ...plan.containers].filter((c) => !PLUMBING.has(c.role));
  const proxied = new Set(plan.faultProxies.map((p) => `${p.target.role}-${p.target.index}`));
  const behindProxy = (c: PlannedContainer) => [...proxied].some((key) => c.name.endsWith(`-${key}`));
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
    cs.forEach((c, row) =>
      nodes.push({
        id: c.name,
        role: c.role,
        label: rolePresentation(c.role).label === "hostname" ? c.hostname : c.title.replace(/^the /, ""),
        color: rolePresentation(c.role).color,
        limits: behindProxy(c) ? `${limitsOf(c)} · fault proxy` : limitsOf(c),
        x: NODE.pad + col * (NODE.width + NODE.gapX),
        y: NODE.pad + row * (NODE.height + NODE.gapY),
      }),
    );
  }
  const ids = (role: string) => all.filter((c) => c.role === role).map((c) => c.name);
  const edges: DiagramEdge[] = [];
  const link = (from: string[], to: string[], kind: DiagramEdge["kind"]) => {
    for (const f of from) for (const t of to) edges.push({ from: f, to: t, kind });
  };
  // The load generator aims at the run's entry: the balancer, or without one the replicas (Docker's DNS spreads it).
  link(ids(LOADGEN_ROLE), ids(plan.entry.role), "http");
  for (const e of DIAGRAM_EDGES) link(ids(e.from), ids(e.to), e.kind);
  const width = NODE.pad * 2 + (Math.max(...columns.keys()) + 1) * NODE.width + Math.max(...columns.keys()) * NODE.gapX;
  const height = NODE.pad * 2 + rows * NODE.height + (rows - 1) * NODE.gapY;
  return { nodes, edges, width, height };
}
