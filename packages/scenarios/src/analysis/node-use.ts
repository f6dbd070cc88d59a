import { hostNoiseSummary, THostSecond } from "./host-noise";
import { round } from "./stats";

/** One second of a container's CPU, in % of one core. */
export type TContainerCpuSecond = { t: number; container: string; cpuPct: number };

/** A node of the summary (ZRunSummary.nodes). */
export type TNodeUse = {
  node: string;
  cpus: number;
  containers: number;
  cpuPct: number;
  hostNoise?: ReturnType<typeof hostNoiseSummary>;
};

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * The summary's per-node figures (issue 18): for each node of the engine, the median CPU of each
 * container placed on it over the load, added up (as the whole-host saturation adds the roles'
 * medians), and its host noise from the host seconds read on that node. Containers the map does not
 * place are left out.
 */
export function nodeUse(
  nodes: readonly { name: string; cpus: number }[],
  containerNodes: Readonly<Record<string, string>>,
  seconds: readonly TContainerCpuSecond[],
  hostByNode: Readonly<Record<string, readonly THostSecond[]>> = {},
): TNodeUse[] {
  const perContainer = new Map<string, number[]>();
  for (const s of seconds) perContainer.set(s.container, [...(perContainer.get(s.container) ?? []), s.cpuPct]);
  return nodes.map((n) => {
    const here = [...perContainer.entries()].filter(([c]) => containerNodes[c] === n.name);
    const noise = hostByNode[n.name] ? hostNoiseSummary(hostByNode[n.name]!) : undefined;
    return {
      node: n.name,
      cpus: n.cpus,
      containers: here.length,
      cpuPct: round(
        here.reduce((sum, [, xs]) => sum + median(xs), 0),
        1,
      ),
      ...(noise && { hostNoise: noise }),
    };
  });
}
