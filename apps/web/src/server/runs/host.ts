import type { THostSample } from "@scalelab/scenarios/messages";
import type { Deps } from "../runtime";
import { assertRunExists } from "./service";

/** The host's CPU in each second of the load, outside the run's containers among it (host_samples), ordered by second (by node, then second, when the run ran on several: each sample names its node). */
export async function getHostSamples(deps: Deps, id: string): Promise<THostSample[]> {
  await assertRunExists(deps, id);
  const rows = await deps.db.hostSample.findMany({ where: { runId: id }, orderBy: [{ node: "asc" }, { t: "asc" }] });
  return rows.map((r) => ({
    t: r.t,
    cores: r.cores,
    hostCpuPct: r.hostCpuPct,
    runCpuPct: r.runCpuPct,
    workerCpuPct: r.workerCpuPct,
    otherCpuPct: r.otherCpuPct,
    ...(r.node !== "local" && { node: r.node }),
  }));
}
