import type { TRunSummary } from "@scalelab/scenarios/schemas";
import type { K6EventReader } from "@scalelab/scenarios/k6-events";
import { saturatedShare } from "@scalelab/scenarios/stats";
import type { LabImages, RunContext } from "./context";

/** Stores the whole-run summary and the facts of the host it was measured on, and flags a doubtful result. */
export async function collect(ctx: RunContext, reader: K6EventReader, images: LabImages): Promise<TRunSummary> {
  const { deps, runId, report, run } = ctx;
  const summary = reader.summary(run.workload.durationSeconds);
  if (!summary) throw new Error("k6 reported no totals (no cumulative event in its stream)");
  const host = { ...(await deps.provisioner.hostFacts()), k6Version: images.k6Version };
  await deps.db.run.update({ where: { id: runId }, data: { summary, host } });

  if (summary.droppedIterations) {
    await report.event("warn", `${summary.droppedIterations} iterations were dropped: the arrival rate was not reached (maxVUs or the system under test saturated)`);
  }
  const loadgen = await deps.db.containerSample.findMany({ where: { runId, role: "loadgen" }, select: { cpuPct: true } });
  const share = saturatedShare(
    loadgen.map((s) => s.cpuPct),
    run.workload.loadgenCpus,
  );
  if (share >= 0.5) {
    await report.event(
      "warn",
      `the load generator used ≥ 90 % of its ${run.workload.loadgenCpus} CPU limit in ${Math.round(share * 100)} % of the seconds: the result may be capped by k6, not by the system under test`,
    );
  }
  return summary;
}
