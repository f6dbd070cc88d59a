import { faultEffects, runImbalance } from "@scalelab/scenarios/analysis";
import { TErrorCounts } from "@scalelab/scenarios/contract";
import { brokerSummary, poolSummary } from "@scalelab/scenarios/components";
import { RunPlan } from "@scalelab/scenarios/plan";
import { evaluateThresholds, THostFacts, thresholdText, TInterference, TRunSummary } from "@scalelab/scenarios/contract";
import { LOADGEN_SATURATION, loadgenUse, nodeUse, roleUse, round } from "@scalelab/scenarios/analysis";
import { HOST_NOISE, hostNoiseSummary, hostSeconds, hostSecondsByNode, isHostNoisy, THostNoise } from "@scalelab/scenarios/analysis";
import { RunContext } from "./context";
import { LoadResult } from "./load";

/** A run with this share of failed requests or more says so on its timeline. */
const ERROR_WARNING = 0.01;

/**
 * Stores the whole-run summary (with what happened to its containers from outside, `interference`)
 * and the facts of the host it was measured on, and flags a doubtful result.
 */
export async function collect(
  ctx: RunContext,
  plan: RunPlan,
  load: LoadResult,
  host: THostFacts,
  interference: TInterference[],
): Promise<TRunSummary> {
  const { deps, runId, report, run } = ctx;
  const seconds = load.seconds;
  const totals = load.totals;
  if (!totals) throw new Error(`${run.workload.loadgen} reported no whole-run totals`);
  const readings = await deps.db.containerSample.findMany({
    where: { runId },
    select: {
      t: true,
      role: true,
      container: true,
      cpuPct: true,
      throttledPeriods: true,
      periods: true,
      memBytes: true,
      throttledMs: true,
      netRxBps: true,
      netTxBps: true,
    },
  });
  const loadgen = loadgenUse(
    readings.filter((r) => r.role === "loadgen").map((r) => r.cpuPct),
    run.workload.loadgenCpus,
  );
  const limits: Record<string, number | undefined> = {};
  for (const c of [...plan.containers, ...plan.loadgens]) limits[c.role] = c.cpus;
  const containers = roleUse(readings, limits);
  // The host's CPU outside the run's containers and the worker, second by second: the lab's host's
  // (one engine, or nodes that are containers on it), or on a cluster of separate machines each
  // node's own, less the containers placed on it.
  const separate = host.nodes !== undefined && !host.sharedMachine;
  const byNode =
    separate && load.hostByNode && host.containerNodes ? hostSecondsByNode(load.hostByNode, readings, host.containerNodes) : undefined;
  const onHost = separate ? [] : hostSeconds(load.host, readings);
  await report.saveHost(byNode ? Object.values(byNode).flat() : onHost);
  const hostNoise = hostNoiseSummary(onHost);
  // On an engine of several nodes: each node's cores and the CPU its containers used (saturation per node), and its noise.
  const nodes =
    host.nodes && host.containerNodes && host.nodes.length > 0
      ? nodeUse(
          host.nodes,
          host.containerNodes,
          readings.map((r) => ({ t: r.t, container: r.container, cpuPct: r.cpuPct })),
          byNode,
        )
      : undefined;
  const pool = poolSummary(load.figures.series, seconds, totals.requests);
  const figureTotals = load.figures.totals();
  const broker = brokerSummary(load.figures.series, seconds, figureTotals);
  const samples = await deps.db.runSample.findMany({
    where: { runId },
    select: { t: true, errors: true, backends: true, errorKinds: true },
    orderBy: { t: "asc" },
  });
  const effectSamples = samples.map((s) => ({
    t: s.t,
    errors: s.errors,
    backends: (s.backends ?? {}) as Record<string, number>,
    ...(s.errorKinds && { errorKinds: s.errorKinds as TErrorCounts }),
  }));
  // Nothing named the replicas: neither an imbalance nor a fault's shift is computed from nothing.
  const known = plan.backendSource !== "unknown";
  const imbalance = known && plan.backends.length > 1 ? runImbalance(effectSamples, totals.backends ?? {}, plan.backends) : undefined;
  const faults =
    run.faults.length > 0
      ? faultEffects(run.faults, effectSamples, { durationSeconds: seconds, backends: known ? plan.backends : [] })
      : undefined;
  const summary: TRunSummary = {
    ...totals,
    ...(plan.backendSource !== "header" && { backendSource: plan.backendSource }),
    loadgen: {
      cpus: run.workload.loadgenCpus,
      ...loadgen,
      tool: run.workload.loadgen,
      instances: run.workload.loadgenInstances,
      ...(load.percentiles && { percentiles: load.percentiles }),
    },
    ...(readings.length > 0 && { containers }),
    ...(pool && { pool }),
    ...(broker && { broker }),
    ...(imbalance && { imbalance }),
    ...(faults && { faults }),
    ...(interference.length > 0 && { interference }),
    ...(hostNoise && { hostNoise }),
    ...(nodes && { nodes }),
    ...(load.script && { script: load.script }),
  };
  if (run.thresholds.length > 0) summary.thresholds = evaluateThresholds(run.thresholds, summary);
  await deps.db.run.update({ where: { id: runId }, data: { summary, host } });

  if (summary.thresholds) {
    const failed = summary.thresholds.results.filter((r) => !r.passed);
    const shown = (r: (typeof failed)[number]) => `${thresholdText(r)} (actual ${r.actual === null ? "none" : round(r.actual, 4)})`;
    await report.event(
      failed.length > 0 ? "warn" : "info",
      failed.length > 0
        ? `${failed.length} of ${summary.thresholds.results.length} threshold(s) failed: ${failed.map(shown).join(", ")}`
        : `all ${summary.thresholds.results.length} threshold(s) passed: ${summary.thresholds.results.map(shown).join(", ")}`,
    );
  }

  if (summary.errorRate >= ERROR_WARNING) {
    await report.event(
      "warn",
      `${round(summary.errorRate * 100, 1)} % of the requests failed (${summary.errors} of ${summary.requests}): the figures describe a failing system; the timeline and the per-container CPU and memory say where`,
    );
  }
  if (figureTotals.logDropped > 0) {
    await report.event(
      "warn",
      `${figureTotals.logDropped} log lines were dropped by the async writer (its buffer was full): logging did less work than asked`,
    );
  }
  if (summary.droppedIterations) {
    await report.event(
      "warn",
      `${summary.droppedIterations} iterations were dropped: the arrival rate was not reached (maxVUs or the system under test saturated)`,
    );
  }
  const noisy = (where: string, n: THostNoise) =>
    report.event(
      "warn",
      `other work on ${where} used a mean ${n.meanPct} % of its ${n.cores} cores outside this run's containers during the load (${n.busySeconds} of ${n.seconds} s at ${HOST_NOISE.busySecondPct} % or more): the figures were measured on a shared ${where === "the host" ? "host" : "node"}`,
    );
  if (isHostNoisy(hostNoise)) await noisy("the host", hostNoise);
  for (const n of nodes ?? []) if (isHostNoisy(n.hostNoise)) await noisy(`node ${n.node}`, n.hostNoise);
  if (!loadgen) {
    await report.event(
      "warn",
      `Docker delivered no CPU reading of the load generator during the load (an engine starved of CPU): whether ${run.workload.loadgen} was saturated is unknown`,
    );
  }
  if (loadgen?.saturated) {
    await report.event(
      "warn",
      `the load generator used ≥ ${LOADGEN_SATURATION.threshold * 100} % of its ${run.workload.loadgenCpus} CPU limit in most seconds (median ${loadgen.medianCpuPct} %): the result may be capped by ${run.workload.loadgen}, not by the system under test`,
    );
  }
  return summary;
}
