import type { THostSample } from "@scalelab/scenarios/messages";

/**
 * The host's CPU per second as shares of the host (100 = every core busy): what the run's containers,
 * the lab's worker and other work used. A second whose outside figure is unknown (a container's
 * reading was missing) has null there: a gap, not a 0.
 */
export type THostRow = { t: number; run: number; worker: number; other: number | null };

const share = (pct: number, cores: number) => Math.round((pct / cores) * 10) / 10;

export function hostRows(samples: readonly THostSample[]): THostRow[] {
  return samples.map((s) => ({
    t: s.t,
    run: share(s.runCpuPct, s.cores),
    worker: share(s.workerCpuPct, s.cores),
    other: s.otherCpuPct === null ? null : share(s.otherCpuPct, s.cores),
  }));
}

/** The nodes the samples were read on, in their order ("local" for samples without one). */
export function sampleNodes(samples: readonly THostSample[]): string[] {
  return [...new Set(samples.map((s) => s.node ?? "local"))];
}

/** The samples of one node (a run on several nodes has a host per node). */
export function samplesOfNode(samples: readonly THostSample[], node: string): THostSample[] {
  return samples.filter((s) => (s.node ?? "local") === node);
}
