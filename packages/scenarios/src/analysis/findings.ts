import { TRunSummary } from "../contract/results";
import { z } from "zod";
import { ExperimentStatistics } from "./experiment-report";
import { affectsLoad, interferencePhrase } from "./interference";
import { HOST_NOISE, isHostNoisy, THostNoise } from "./host-noise";
import { PERIODS_PER_SECOND, TRoleUse } from "./stats";

/**
 * Findings: rules that read a run's or an experiment's figures and say why it came out so, each
 * with the figures it used as evidence. The thresholds are named below; each rule has tests on
 * figures recorded from real runs of the write-ups' experiments (./fixtures/findings/).
 */

export const ZFinding = z.object({
  code: z.string(),
  /** info: context; warn: a result to read with care or a bottleneck outside the system under test. */
  level: z.enum(["info", "warn"]),
  message: z.string(),
  evidence: z.record(z.string(), z.unknown()),
});
export type TFinding = z.infer<typeof ZFinding>;

/** Every code a finding may have (run findings, then experiment findings); the evidence of each is labelled in ./evidence.ts. */
export const FINDING_CODES = [
  "interference",
  "nodes_share_machine",
  "host_noise",
  "loadgen_saturated",
  "host_cpu_saturated",
  "replicas_throttled",
  "pool_starvation",
  "balancer_bound",
  "downstream_bound",
  "store_bound",
  "consumer_lag",
  "failures_in_fault_windows",
  "failures_outside_fault_windows",
  "errors",
  "bound_elsewhere",
  "backends_unknown",
  "imbalance",
  "not_significant",
  "significant_difference",
  "noisy_variant",
  "usl_fit",
] as const;

export const FINDING_THRESHOLDS = {
  /** The containers together use at least this share of the host's cores. */
  hostSaturated: 0.85,
  /** A role at or above this % of its CPU limit is at its limit. */
  atLimitPct: 85,
  /** Throttled CFS periods per second (of 10) from which a role counts as throttled. */
  throttledPerSecond: 2,
  /** A full pool counts as starving when the service used less than this % of its CPU limit (or of one core). */
  starvedCpuPct: 50,
  /** max/mean of the replicas' answers from which the spread counts as uneven. */
  imbalance: 1.3,
  /** A failure rate worth saying. */
  errorRate: 0.001,
  /** Consumer lag worth saying: events behind at the peak. */
  lag: 10,
} as const;

/** `openModel`: the load came at a fixed rate (k6's arrival rate), so no bottleneck is expected to show. */
/** `sharedMachine`: the engine's nodes ran on one machine (THostFacts.sharedMachine). */
type RunInput = { summary: TRunSummary; hostCpus: number | null; openModel?: boolean; sharedMachine?: boolean };

const pct = (v: number) => `${Math.round(v)} %`;
const round1 = (v: number) => Math.round(v * 10) / 10;

/** Findings that read the run's figures as those of the topology it defined, all of it running (imbalance says why itself). */
const TOPOLOGY_FINDINGS = new Set([
  "host_cpu_saturated",
  "replicas_throttled",
  "pool_starvation",
  "balancer_bound",
  "downstream_bound",
  "store_bound",
  "consumer_lag",
  "bound_elsewhere",
]);

/** The findings of one run, most telling first: outside interference before anything read from its figures. */
export function runFindings(input: RunInput): TFinding[] {
  const s = input.summary;
  const interference = (s.interference ?? []).filter((i) => affectsLoad(i, s.durationSeconds));
  // On several nodes each has its own host: its noise is said per node, when it was read per node.
  const noise = s.nodes?.some((n) => n.hostNoise)
    ? s.nodes.flatMap((n) => (isHostNoisy(n.hostNoise) ? [hostNoiseFinding(n.hostNoise, n.node)] : []))
    : isHostNoisy(s.hostNoise)
      ? [hostNoiseFinding(s.hostNoise)]
      : [];
  const shared = input.sharedMachine && s.nodes && s.nodes.length > 1 ? [sharedMachineFinding(s.nodes, input.hostCpus)] : [];
  const findings = [...shared, ...noise, ...figureFindings(input, interference.length > 0)];
  if (interference.length === 0) return findings;
  return [
    {
      code: "interference",
      level: "warn",
      message: `Outside interference: ${interference.map(interferencePhrase).join("; ")}: the result is affected, not a clean measurement of the topology as defined.`,
      evidence: { interference },
    },
    ...findings.map((f) =>
      TOPOLOGY_FINDINGS.has(f.code)
        ? {
            ...f,
            message: `${f.message} Read it with care: it was measured while the topology was not intact (see the outside interference).`,
            evidence: { ...f.evidence, interference: true },
          }
        : f,
    ),
  ];
}

/** Other work on the host took a noticeable share of it during the load (./host-noise.ts). */
/** The nodes are containers on one machine: where containers were placed cannot add CPU. */
function sharedMachineFinding(nodes: readonly { node: string }[], hostCpus: number | null): TFinding {
  return {
    code: "nodes_share_machine",
    level: "info",
    message: `The engine's ${nodes.length} nodes (${nodes.map((n) => n.node).join(", ")}) are containers on one machine${hostCpus ? ` of ${hostCpus} cores` : ""}: they share its cores, so spreading containers over them cannot add throughput here. On a cluster of separate machines (docs/DISTRIBUTED.md) it can.`,
    evidence: { nodes: nodes.length, ...(hostCpus !== null && { hostCpus }) },
  };
}

function hostNoiseFinding(n: THostNoise, node?: string): TFinding {
  const host = node === undefined ? "the host" : `node ${node}`;
  return {
    code: "host_noise",
    level: "warn",
    message: `Other work on ${host} used a mean ${round1(n.meanPct)} % of its ${n.cores} cores (${n.meanCores} cores; ${n.busySeconds} of ${n.seconds} s at ${HOST_NOISE.busySecondPct} % or more, up to ${round1(n.maxPct)} %) outside this run's containers and the lab's worker during the load: the run shared ${node === undefined ? "the host" : "the node"}, so its figures may be lower and noisier than on a quiet host. Repeat it on a quiet host, or see what else runs there.`,
    evidence: {
      ...(node !== undefined && { node }),
      cores: n.cores,
      meanPct: n.meanPct,
      p95Pct: n.p95Pct,
      maxPct: n.maxPct,
      meanCores: n.meanCores,
      busySeconds: n.busySeconds,
      seconds: n.seconds,
      workerMeanPct: n.workerMeanPct,
    },
  };
}

/**
 * Throttling as a share of the CFS periods that elapsed, never more than them. A run recorded before
 * the periods were has only the throttled count: it is capped at the 10 periods a second of Docker's
 * 100 ms period (clamped, and the evidence says so).
 */
function throttling(r: TRoleUse, their: string): { text: string; evidence: Record<string, unknown> } {
  if (r.throttledShare !== undefined && r.periodsPerSecond !== undefined) {
    return {
      text: `throttled in ${pct(r.throttledShare * 100)} of ${their} CFS periods, ${round1(r.throttledPerSecond)} of the ${round1(r.periodsPerSecond)} that elapsed per second`,
      evidence: { throttledShare: r.throttledShare, throttledPerSecond: r.throttledPerSecond, periodsPerSecond: r.periodsPerSecond },
    };
  }
  const perSecond = Math.min(r.throttledPerSecond, PERIODS_PER_SECOND);
  return {
    text: `throttled in ${round1(perSecond)} of at most ${PERIODS_PER_SECOND} CFS periods per second`,
    evidence: { throttledPerSecond: perSecond, periodsClamped: true },
  };
}

/** `interfered`: the topology was not intact for part of the load (outside interference). */
function figureFindings({ summary: s, hostCpus, openModel = false, sharedMachine = false }: RunInput, interfered: boolean): TFinding[] {
  const out: TFinding[] = [];
  const roles = s.containers ?? {};
  const app = roles.app;

  if (s.loadgen?.saturated) {
    out.push({
      code: "loadgen_saturated",
      level: "warn",
      message: `The load generator was saturated (${s.loadgen.tool ?? "it"} at a median ${pct(s.loadgen.medianCpuPct ?? 100)} of its ${s.loadgen.cpus} CPU): the figures are a bound on the load generator, not on the system under test. Give it more CPU or instances.`,
      evidence: { tool: s.loadgen.tool, cpus: s.loadgen.cpus, medianCpuPct: s.loadgen.medianCpuPct, instances: s.loadgen.instances },
    });
  }

  let hostSaturated = false;
  if (s.nodes?.length && !sharedMachine) {
    // Per node: the containers placed on a node share its cores only (nodes on one machine share all of its cores).
    for (const n of s.nodes) {
      if (n.containers === 0 || n.cpuPct < FINDING_THRESHOLDS.hostSaturated * n.cpus * 100) continue;
      hostSaturated = true;
      out.push({
        code: "host_cpu_saturated",
        level: "warn",
        message: `Node ${n.node}'s ${n.cpus} cores were saturated: the ${n.containers} container(s) placed on it together used ${pct(n.cpuPct)} of ${n.cpus * 100} %. They shared that node's cores; spread them over more nodes (topology.placement) or give it fewer.`,
        evidence: { node: n.node, hostCpus: n.cpus, totalCpuPct: round1(n.cpuPct), nodeContainers: n.containers },
      });
    }
  } else if (hostCpus !== null && Object.keys(roles).length > 0) {
    const byRole = Object.fromEntries(Object.entries(roles).map(([role, r]) => [role, round1(r.medianCpuPct * r.containers)]));
    const total = Object.values(byRole).reduce((a, b) => a + b, 0);
    if (total >= FINDING_THRESHOLDS.hostSaturated * hostCpus * 100) {
      hostSaturated = true;
      const unlimited = app && app.pctOfLimit === undefined;
      out.push({
        code: "host_cpu_saturated",
        level: "warn",
        message: `The host's ${hostCpus} cores were saturated: the containers together used ${pct(total)} of ${hostCpus * 100} %${unlimited && app.containers > 1 ? `. The ${app.containers} replicas only shared the same cores, so more replicas cannot add throughput here; they add contention (experiment 1)` : ""}.`,
        evidence: { hostCpus, totalCpuPct: round1(total), cpuPctByRole: byRole },
      });
    }
  }

  if (
    app?.pctOfLimit !== undefined &&
    app.pctOfLimit >= FINDING_THRESHOLDS.atLimitPct &&
    app.throttledPerSecond >= FINDING_THRESHOLDS.throttledPerSecond
  ) {
    const their = app.containers > 1 ? "their" : "its";
    const throttled = throttling(app, their);
    out.push({
      code: "replicas_throttled",
      level: "info",
      message: `${app.containers > 1 ? `The ${app.containers} replicas` : "The replica"} ran at ${their} CPU limit (${pct(app.pctOfLimit)} of it, ${throttled.text}): the quota caps each replica${hostSaturated ? "" : ", and the host has cores to spare, so more replicas add capacity (experiment 3)"}.`,
      evidence: {
        pctOfLimit: app.pctOfLimit,
        ...throttled.evidence,
        throttledMsPerSecond: app.throttledMsPerSecond,
        replicas: app.containers,
      },
    });
  }

  if (
    s.pool &&
    s.pool.size > 0 &&
    s.pool.maxBusy !== null &&
    s.pool.maxBusy >= s.pool.size &&
    (s.pool.maxQueued > 0 || s.pool.rejected > 0)
  ) {
    const cpu = app?.pctOfLimit ?? app?.medianCpuPct;
    if (cpu !== undefined && cpu < FINDING_THRESHOLDS.starvedCpuPct) {
      out.push({
        code: "pool_starvation",
        level: "warn",
        message: `The worker pool was full (${s.pool.maxBusy}/${s.pool.size} busy, up to ${s.pool.maxQueued} waiting${s.pool.rejected > 0 ? `, ${s.pool.rejected} refused` : ""}) while the service used only ${pct(cpu)} of its CPU${app?.pctOfLimit !== undefined ? " limit" : ""}: requests waited for a worker, not for the CPU. Something blocks the workers (experiment 2: a synchronous log flush).`,
        evidence: { pool: s.pool, serviceCpuPct: cpu, latencyP95Ms: s.latencyMs.p95 },
      });
    }
  }

  const lb = roles.lb;
  if (lb && app) {
    const lbBusy = lb.pctOfLimit ?? lb.medianCpuPct;
    const appBusy = app.pctOfLimit ?? app.medianCpuPct;
    if (lbBusy >= FINDING_THRESHOLDS.atLimitPct && appBusy < FINDING_THRESHOLDS.starvedCpuPct) {
      out.push({
        code: "balancer_bound",
        level: "warn",
        message: `The balancer was the bottleneck: it used ${pct(lbBusy)} of its CPU${lb.pctOfLimit !== undefined ? " limit" : " (of one core)"} while the replicas used ${pct(appBusy)}${app.pctOfLimit !== undefined ? " of theirs" : " of a core each"}. Give the balancer more CPU before adding replicas.`,
        evidence: { balancerCpuPct: lbBusy, replicaCpuPct: appBusy },
      });
    }
  }

  const logs = roles.logs;
  if (logs?.pctOfLimit !== undefined && logs.pctOfLimit >= FINDING_THRESHOLDS.atLimitPct) {
    const appBusy = app?.pctOfLimit ?? app?.medianCpuPct;
    out.push({
      code: "downstream_bound",
      level: "info",
      message: `The synchronous downstream (logs) ran at its CPU limit (${pct(logs.pctOfLimit)} of it)${appBusy !== undefined ? ` while the service used ${pct(appBusy)} of its CPU${app?.pctOfLimit !== undefined ? " limit" : ""}` : ""}: every request waited for the downstream's work. Handing it to a queue frees the request (experiment 4).`,
      evidence: {
        logsPctOfLimit: logs.pctOfLimit,
        logsThrottledPerSecond: Math.min(logs.throttledPerSecond, logs.periodsPerSecond ?? PERIODS_PER_SECOND),
        serviceCpuPct: appBusy,
      },
    });
  }

  const db = roles.db;
  if (db?.pctOfLimit !== undefined && db.pctOfLimit >= FINDING_THRESHOLDS.atLimitPct) {
    out.push({
      code: "store_bound",
      level: "info",
      message: `The store was at its CPU limit (${pct(db.pctOfLimit)} of it): its write path decides the throughput (experiment 5).`,
      evidence: {
        pctOfLimit: db.pctOfLimit,
        ...throttling(db, "its").evidence,
        serviceCpuPct: app?.pctOfLimit ?? app?.medianCpuPct,
      },
    });
  }

  if (s.broker && s.broker.maxLag >= FINDING_THRESHOLDS.lag) {
    const drained = s.broker.drainSeconds;
    const lagTail =
      s.broker.lagAtEnd > 0
        ? `${s.broker.lagAtEnd} events were still waiting when the load ended, ${drained === null ? "not worked off within the drain window" : `worked off ${drained} s later`}`
        : "none were left at the end";
    out.push({
      code: "consumer_lag",
      level: "info",
      message: `The consumers fell behind: the lag grew to ${s.broker.maxLag} events; ${lagTail}. The requests were answered before their work was done: it is only eventually done (experiment 4).`,
      evidence: { ...s.broker, ...(roles.consumer?.pctOfLimit !== undefined && { consumerPctOfLimit: roles.consumer.pctOfLimit }) },
    });
  }

  const faultFailures = (s.faults ?? []).reduce((n, f) => n + f.failedRequests, 0);
  if (s.faults && s.faults.length > 0 && s.errors > 0) {
    const outside = Math.max(0, s.errors - faultFailures);
    const windows = s.faults
      .filter((f) => f.failedRequests > 0)
      .map((f) => `${f.failedRequests} after ${f.action} ${f.target.role}-${f.target.index} @${f.at}s`);
    out.push(
      outside === 0
        ? {
            code: "failures_in_fault_windows",
            level: "info",
            message: `All ${s.errors} failed requests came in the faults' windows (${windows.join(", ")}); nothing failed before the first fault (experiment 6).`,
            evidence: {
              errors: s.errors,
              errorKinds: s.errorKinds,
              byFault: s.faults.map((f) => ({ at: f.at, action: f.action, failedRequests: f.failedRequests })),
            },
          }
        : {
            code: "failures_outside_fault_windows",
            level: "warn",
            message: `${outside} of ${s.errors} failed requests came before the first fault: something other than the faults failed.`,
            evidence: { errors: s.errors, outside, errorKinds: s.errorKinds },
          },
    );
  } else if (s.errorRate >= FINDING_THRESHOLDS.errorRate) {
    const kinds = Object.entries(s.errorKinds ?? {})
      .filter(([, n]) => (n ?? 0) > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    out.push({
      code: "errors",
      level: "warn",
      message: `${(s.errorRate * 100).toFixed(2)} % of requests failed (${s.errors}${kinds ? `: ${kinds}` : ""}).`,
      evidence: { errors: s.errors, errorRate: s.errorRate, errorKinds: s.errorKinds },
    });
  }

  const bottlenecks = [
    "loadgen_saturated",
    "host_cpu_saturated",
    "replicas_throttled",
    "pool_starvation",
    "balancer_bound",
    "downstream_bound",
    "store_bound",
  ];
  const atLimit = Object.entries(roles).filter(([, r]) => r.pctOfLimit !== undefined && r.pctOfLimit >= FINDING_THRESHOLDS.atLimitPct);
  if (
    !openModel &&
    hostCpus !== null &&
    Object.keys(roles).length > 0 &&
    atLimit.length === 0 &&
    !out.some((f) => bottlenecks.includes(f.code))
  ) {
    const total = Object.values(roles).reduce((n, r) => n + r.medianCpuPct * r.containers, 0);
    const noisy = isHostNoisy(s.hostNoise)
      ? ` Other work on the host used a mean ${round1(s.hostNoise.meanPct)} % of it meanwhile (host noise), which may be what bounds it.`
      : "";
    out.push({
      code: "bound_elsewhere",
      level: "info",
      message: `No container was at its CPU limit and the host's cores were not saturated (the containers together used ${pct(total)} of ${hostCpus * 100} %): what bounds this run is outside what the lab measures per container, such as the kernel's network path between the containers, a container without a CPU limit using fewer threads than the host has cores, or the load generator's few connections each waiting for its answer.${noisy}`,
      evidence: {
        hostCpus,
        totalCpuPct: round1(total),
        cpuPctByRole: Object.fromEntries(Object.entries(roles).map(([role, r]) => [role, r.pctOfLimit ?? r.medianCpuPct])),
      },
    });
  }

  if (s.backendSource === "unknown") {
    out.push({
      code: "backends_unknown",
      level: "info",
      message: `Which replica answered each request is unknown: ${s.loadgen?.tool ?? "the load generator"} went to the replicas without a balancer and nothing in the answers named them, so the spread over the replicas (and a fault's shift of it) is not measured. Put a balancer in front, or use k6, which counts the address each connection reached.`,
      evidence: { backendSource: s.backendSource, backends: s.backends },
    });
  }
  if (s.imbalance && s.imbalance.run >= FINDING_THRESHOLDS.imbalance) {
    const faulted = (s.faults ?? []).length > 0;
    const why = faulted ? ", as the faults took replicas out" : interfered ? ", as outside interference took replicas out" : "";
    out.push({
      code: "imbalance",
      level: faulted || interfered ? "info" : "warn",
      message: `The replicas did not share the load evenly: the busiest answered ${s.imbalance.run.toFixed(2)}× the mean (max/mean over the run)${why}.`,
      evidence: { imbalance: s.imbalance, backends: s.backends },
    });
  }
  return out;
}

type VariantRuns = { name: string; runs: RunInput[] };

/**
 * An experiment's findings: how each variant compares with the baseline (a real difference or `~`),
 * the variants that varied too much to trust, the USL's peak, and the run findings that held in
 * most runs of a variant (with the count as evidence).
 */
export function experimentFindings(stats: ExperimentStatistics, variants: readonly VariantRuns[], baseline: number): TFinding[] {
  const out: TFinding[] = [];
  for (const c of stats.comparisons.filter((x) => x.metric === "rps")) {
    if (c.pValue === null) continue;
    if (!c.significant) {
      out.push({
        code: "not_significant",
        level: "info",
        message: `"${c.variant}" against "${c.baseline}": no significant difference in req/s, ${c.text}: the runs vary as much as the variants differ. More repetitions would tell a small difference from noise.`,
        evidence: { metric: c.metric, ratio: c.ratio, ciLow: c.ciLow, ciHigh: c.ciHigh, pValue: c.pValue },
      });
    } else {
      out.push({
        code: "significant_difference",
        level: "info",
        message: `"${c.variant}" served ${c.ratio!.toFixed(2)}× the req/s of "${c.baseline}" (95 % CI ${c.ciLow!.toFixed(2)}–${c.ciHigh!.toFixed(2)}×, p=${c.pValue.toFixed(3)}).`,
        evidence: { metric: c.metric, ratio: c.ratio, ciLow: c.ciLow, ciHigh: c.ciHigh, pValue: c.pValue },
      });
    }
  }
  stats.variants.forEach((v, i) => {
    // Latency percentiles of a few ms wander by more than 10 % between runs as a rule; req/s should not.
    if (!v.noisy.includes("rps")) return;
    const cv = v.metrics.rps.cv ?? 0;
    const runs = variants[i]?.runs ?? [];
    const noisyHost = runs.flatMap((r) => (isHostNoisy(r.summary.hostNoise) ? [r.summary.hostNoise] : []));
    const worst = Math.max(0, ...noisyHost.map((n) => n.meanPct));
    const host =
      noisyHost.length > 0
        ? ` ${noisyHost.length} of its ${runs.length} runs shared the host with other work (up to a mean ${round1(worst)} % of the host outside the run): host noise, not the variant, may explain the spread. Repeat them on a quiet host.`
        : "";
    out.push({
      code: "noisy_variant",
      level: "warn",
      message: `"${variants[i]?.name}" varied by more than 10 % in req/s between its repetitions (coefficient of variation ${Math.round(cv * 100)} %); read its comparisons with care, or add repetitions.${host}`,
      evidence: {
        metric: "rps",
        cv,
        mean: v.metrics.rps.mean,
        sd: v.metrics.rps.sd,
        runs: v.runs,
        ...(noisyHost.length > 0 && { hostNoiseRuns: noisyHost.length, hostNoiseMaxPct: worst }),
      },
    });
  });
  if (stats.usl) {
    const u = stats.usl;
    out.push({
      code: "usl_fit",
      level: "info",
      message:
        u.peakN !== null
          ? `The Universal Scalability Law fits the sweep (R² ${u.r2?.toFixed(3) ?? "—"}): throughput peaks at N ≈ ${u.peakN.toFixed(1)} (${Math.round(u.peakX ?? 0)} req/s); contention σ = ${u.sigma.toFixed(4)}, coherency κ = ${u.kappa.toExponential(2)}.${stats.uslNote ? ` Caveat: ${stats.uslNote}.` : ""}`
          : `The Universal Scalability Law fits the sweep (R² ${u.r2?.toFixed(3) ?? "—"}) with no coherency cost (κ = 0): throughput does not turn down within the model${u.ceilingX !== null ? `, it levels off towards λ/σ ≈ ${Math.round(u.ceilingX)} req/s (contention σ = ${u.sigma.toFixed(4)})` : " and grows almost linearly"}.${stats.uslNote ? ` Caveat: ${stats.uslNote}.` : ""}`,
      evidence: { sigma: u.sigma, kappa: u.kappa, lambda: u.lambda, peakN: u.peakN, ceilingX: u.ceilingX, r2: u.r2 },
    });
  }
  variants.forEach((v, i) => {
    const counts = new Map<string, { n: number; first: TFinding }>();
    for (const r of v.runs) {
      for (const f of runFindings(r)) {
        const seen = counts.get(f.code);
        if (seen) seen.n++;
        else counts.set(f.code, { n: 1, first: f });
      }
    }
    for (const [code, { n, first }] of counts) {
      if (n * 2 <= v.runs.length) continue;
      out.push({
        code,
        level: first.level,
        message: `"${v.name}"${i === baseline ? " (baseline)" : ""}, ${n} of ${v.runs.length} runs: ${first.message}`,
        evidence: { variant: v.name, runs: n, of: v.runs.length, ...first.evidence },
      });
    }
  });
  return out;
}
