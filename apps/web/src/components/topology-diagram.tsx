import { NODE, type Diagram, type DiagramEdge, type DiagramNode } from "@scalelab/scenarios/plan";
import { useId } from "react";
import { useScrollRegion } from "./scroll-region";

/** How far the diagram shrinks with its card before it scrolls instead: below this its labels are too small to read. */
const MIN_SCALE = 0.6;

const EDGES: Record<DiagramEdge["kind"], { label: string; color: string; dash?: string }> = {
  http: { label: "HTTP request", color: "#647084" },
  sync: { label: "sync call (the request waits)", color: "#e8590c" },
  async: { label: "async event (through the broker)", color: "#ae3ec9", dash: "7 4" },
  query: { label: "store query", color: "#2b8a3e", dash: "1.5 3.5" },
};

const LEGEND_HEIGHT = 30;
/** Where legend entry i starts: a 28 px line, its label (about 6 px a character at 11 px), a gap. */
const legendOffset = (kinds: readonly DiagramEdge["kind"][], i: number) =>
  kinds.slice(0, i).reduce((x, k) => x + 34 + EDGES[k].label.length * 6 + 24, 0);

function Edge({ from, to, kind, marker }: { from: DiagramNode; to: DiagramNode; kind: DiagramEdge["kind"]; marker: string }) {
  const x1 = from.x + NODE.width;
  const y1 = from.y + NODE.height / 2;
  const x2 = to.x - 2;
  const y2 = to.y + NODE.height / 2;
  const mid = (x1 + x2) / 2;
  const style = EDGES[kind];
  return (
    <path
      d={`M ${x1} ${y1} C ${mid} ${y1}, ${mid} ${y2}, ${x2} ${y2}`}
      fill="none"
      stroke={style.color}
      strokeWidth={1.5}
      strokeDasharray={style.dash}
      markerEnd={`url(#${marker}-${kind})`}
      data-kind={kind}
    />
  );
}

function Node({ node, cpu }: { node: DiagramNode; cpu: number | undefined }) {
  const color = node.color;
  return (
    <g transform={`translate(${node.x} ${node.y})`} data-testid={`diagram-node-${node.role}`} data-node={node.id} data-cpu={cpu}>
      <title>{`${node.id}\n${node.limits}`}</title>
      <rect className="node-box" width={NODE.width} height={NODE.height} rx={6} fill="#fff" stroke={color} strokeWidth={1.5} />
      <rect width={4} height={NODE.height} rx={2} fill={color} />
      <text className="node-label" x={12} y={20} fontSize={12.5} fontWeight={600} fill="#1c2330">
        {node.label}
      </text>
      {cpu !== undefined && (
        <text
          className="node-cpu"
          x={NODE.width - 8}
          y={20}
          fontSize={11}
          textAnchor="end"
          fill={color}
          fontWeight={600}
          data-testid="diagram-cpu"
        >
          {Math.round(cpu)} %
        </text>
      )}
      <text className="node-limits" x={12} y={38} fontSize={11} fill="#647084">
        {node.limits}
      </text>
    </g>
  );
}

/**
 * The run's containers as boxes with their limits, laid out along the request path, with the calls
 * between them. `cpu` (container name → % of one core) adds each container's CPU use.
 */
export function TopologyDiagram({ diagram, cpu, cpuNote }: { diagram: Diagram; cpu?: Record<string, number>; cpuNote?: string }) {
  const marker = useId().replace(/:/g, "");
  const byId = new Map(diagram.nodes.map((n) => [n.id, n]));
  const kinds = (Object.keys(EDGES) as DiagramEdge["kind"][]).filter((k) => diagram.edges.some((e) => e.kind === k));
  const height = diagram.height + LEGEND_HEIGHT;
  const region = useScrollRegion<HTMLDivElement>("Topology diagram");
  return (
    <div className="diagram" {...region}>
      <svg
        data-testid="topology-diagram"
        width={diagram.width}
        height={height}
        style={{ width: "100%", maxWidth: diagram.width, minWidth: Math.round(diagram.width * MIN_SCALE) }}
        viewBox={`0 0 ${diagram.width} ${height}`}
        role="img"
        aria-label={`Topology: ${diagram.nodes.map((n) => n.label).join(", ")}`}
        fontFamily="system-ui, sans-serif"
      >
        <defs>
          {kinds.map((k) => (
            <marker
              key={k}
              id={`${marker}-${k}`}
              viewBox="0 0 10 10"
              refX={9}
              refY={5}
              markerWidth={7}
              markerHeight={7}
              orient="auto-start-reverse"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" fill={EDGES[k].color} />
            </marker>
          ))}
        </defs>
        {diagram.groups?.map((g) => (
          <g key={g.name} data-testid="diagram-group" data-group={g.name}>
            <rect x={4} y={g.y} width={diagram.width - 8} height={g.height} rx={8} fill="#f4f6fa" stroke="#d5dbe5" />
            <text x={NODE.pad} y={g.y + 14} fontSize={11} fontWeight={600} fill="#3d4451">
              {g.label}
            </text>
          </g>
        ))}
        {diagram.edges.map((e) => {
          const from = byId.get(e.from);
          const to = byId.get(e.to);
          return from && to ? <Edge key={`${e.from}>${e.to}`} from={from} to={to} kind={e.kind} marker={marker} /> : null;
        })}
        {diagram.nodes.map((n) => (
          <Node key={n.id} node={n} cpu={cpu?.[n.id]} />
        ))}
        <g
          className="diagram-legend"
          transform={`translate(${NODE.pad} ${diagram.height + 12})`}
          fontSize={11}
          fill="#647084"
          data-testid="diagram-legend"
        >
          {kinds.map((k, i) => (
            <g key={k} transform={`translate(${legendOffset(kinds, i)} 0)`}>
              <line x1={0} y1={0} x2={28} y2={0} stroke={EDGES[k].color} strokeWidth={1.5} strokeDasharray={EDGES[k].dash} />
              <text x={34} y={4}>
                {EDGES[k].label}
              </text>
            </g>
          ))}
        </g>
      </svg>
      {cpuNote && <div className="hint">{cpuNote}</div>}
    </div>
  );
}
