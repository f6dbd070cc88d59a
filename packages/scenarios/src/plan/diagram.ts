import { PlannedContainer } from "../components/types";
import { RunPlan } from "./plan";

/**
 * The topology as a diagram: one box per container with its limits, laid out left to right along
 * the request path (load generator → balancer → replicas → downstream, broker and store), and the
 * edges between them. Pure layout; the dashboard draws it as SVG.
 */
export type DiagramNode = {
  id: string;
  role: string;
  label: string;
  /** "0.2 CPU · 256 MB" */
  limits: string;
  x: number;
  y: number;
};
export type DiagramEdge = { from: string; to: string; kind: "http" | "sync" | "async" | "query" };
export type Diagram = { nodes: DiagramNode[]; edges: DiagramEdge[]; width: number; height: number };

export const NODE = { width: 150, height: 52, gapX: 56, gapY: 14, pad: 12 } as const;

const COLUMN: Record<string, number> = { loadgen: 0, lb: 1, app: 2, logs: 3, kafka: 3, db: 3, cache: 3, consumer: 4 };
const ROW_ORDER: Record<string, number> = { logs: 0, kafka: 1, db: 2, cache: 3 };

const MB = 1024 * 1024;
const limitsOf = (c: PlannedContainer) =>
  [
    c.cpus !== undefined ? `${c.cpus} CPU` : "no CPU limit",
    c.memoryBytes !== undefined ? `${Math.round(c.memoryBytes / MB)} MB` : undefined,
  ]
    .filter(Boolean)
    .join(" · ");

/** Plumbing of a fault timeline, not parts of the topology: drawn as a note on their target's box. */
const PLUMBING = new Set(["netns", "proxy"]);

export function topologyDiagram(plan: RunPlan): Diagram {
  const all = [...plan.loadgens, ...plan.containers].filter((c) => !PLUMBING.has(c.role));
  const proxied = new Set(plan.faultProxies.map((p) => `${p.target.role}-${p.target.index}`));
  const behindProxy = (c: PlannedContainer) => [...proxied].some((key) => c.name.endsWith(`-${key}`));
  const columns = new Map<number, PlannedContainer[]>();
  // Columns the plan does not use (the balancer's, with kind none) are closed up.
  const used = [...new Set(all.map((c) => COLUMN[c.role] ?? 3))].sort((a, b) => a - b);
  for (const c of all) {
    const col = used.indexOf(COLUMN[c.role] ?? 3);
    columns.set(col, [...(columns.get(col) ?? []), c]);
  }
  const nodes: DiagramNode[] = [];
  let rows = 0;
  for (const [col, cs] of columns) {
    cs.sort((a, b) => (ROW_ORDER[a.role] ?? 0) - (ROW_ORDER[b.role] ?? 0));
    rows = Math.max(rows, cs.length);
    cs.forEach((c, row) =>
      nodes.push({
        id: c.name,
        role: c.role,
        label: c.role === "app" || c.role === "logs" || c.role === "consumer" ? c.hostname : c.title.replace(/^the /, ""),
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
  // Without a balancer the load generator reaches the replicas directly (Docker's DNS spreads it).
  link(ids("loadgen"), ids("lb").length > 0 ? ids("lb") : ids("app"), "http");
  link(ids("lb"), ids("app"), "http");
  link(ids("app"), ids("logs"), "sync");
  link(ids("app"), ids("kafka"), "async");
  link(ids("kafka"), ids("consumer"), "async");
  link(ids("app"), ids("db"), "query");
  link(ids("app"), ids("cache"), "query");
  const width = NODE.pad * 2 + (Math.max(...columns.keys()) + 1) * NODE.width + Math.max(...columns.keys()) * NODE.gapX;
  const height = NODE.pad * 2 + rows * NODE.height + (rows - 1) * NODE.gapY;
  return { nodes, edges, width, height };
}
