import type { THostFacts, TRunSummary } from "@scalelab/scenarios/schemas";
import type { K6EventReader } from "@scalelab/scenarios/k6-events";
import { LOADGEN_SATURATION, loadgenUse, roleUse } from "@scalelab/scenarios/stats";
import type { RunContext } from "./context";

/** Stores the whole-run summary and the facts of the host it was measured on, and flags a doubtful result. */
export async function collect(ctx: RunContext, reader: K6EventReader, host: THostFacts): Promise<TRunSummary> {
  const { deps, runId, report, run } = ctx;
  const totals = reader.summary(run.workload.durationSeconds);
  if (!totals) throw new Error("k6 reported no totals (no cumulative event in its stream)");
  const readings = await deps.db.containerSample.findMany({
    where: { runId },
    select: { role: true, container: true, cpuPct: true, throttledPeriods: true },
  });
  const loadgen = loadgenUse(
    readings.filter((r) => r.role === "loadgen").map((r) => r.cpuPct),
    run.workload.loadgenCpus,
  );
  const containers = roleUse(readings, {
    app: run.topology.service.cpus,
    lb: run.topology.balancer.cpus,
    loadgen: run.workload.loadgenCpus,
  });
  const summary: TRunSummary = { ...totals, ...(loadgen && { loadgen }), ...(readings.length > 0 && { containers }) };
  await deps.db.run.update({ where: { id: runId }, data: { summary, host } });

  if (summary.droppedIterations) {
    await report.event("warn", `${summary.droppedIterations} iterations were dropped: the arrival rate was not reached (maxVUs or the system under test saturated)`);
  }
  if (loadgen?.saturated) {
    await report.event(
      "warn",
      `the load generator used ≥ ${LOADGEN_SATURATION.threshold * 100} % of its ${run.workload.loadgenCpus} CPU limit in most seconds (median ${loadgen.medianCpuPct} %): the result may be capped by k6, not by the system under test`,
    );
  }
  return summary;
}
