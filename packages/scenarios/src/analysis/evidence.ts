import { TInterference } from "../contract/results";
import { interferencePhrase } from "./interference";

/**
 * How a finding's evidence reads: every key a finding emits has a label and a unit here, so the run
 * page, the experiment page and the HTML report show "CPU used, % of its limit: 86 %" rather than
 * "pctOfLimit 86.2". A key without an entry is a bug (findings.test.ts fails on it).
 */

const num = (v: number, digits = 1) => v.toLocaleString("en-US", { maximumFractionDigits: digits });
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

type Format = (v: unknown) => string;

const unknownText = "unknown";
const numberWith =
  (unit: string, digits = 1): Format =>
  (v) =>
    isNum(v) ? `${num(v, digits)}${unit}` : v === null || v === undefined ? unknownText : String(v);
const pct = numberWith(" %", 0);
const pct1 = numberWith(" %", 1);
const count = numberWith("", 0);
const share: Format = (v) => (isNum(v) ? `${num(v * 100, 1)} %` : unknownText);
const times: Format = (v) => (isNum(v) ? `${num(v, 2)}×` : unknownText);
const plain = numberWith("", 3);
const text: Format = (v) => (v === null || v === undefined ? unknownText : String(v));
/** A map of names to numbers ("app 109 %, lb 55 %"). */
const byName =
  (f: Format): Format =>
  (v) =>
    isRecord(v)
      ? Object.entries(v)
          .map(([k, x]) => `${k} ${f(x)}`)
          .join(", ") || "none"
      : text(v);

const POOL_LABELS: Record<string, string> = {
  size: "pool size",
  maxBusy: "busy at most",
  medianBusy: "busy (median)",
  maxQueued: "queued at most",
  medianQueued: "queued (median)",
  rejected: "refused",
};
const pool: Format = (v) =>
  isRecord(v)
    ? Object.entries(v)
        .map(([k, x]) => `${POOL_LABELS[k] ?? k} ${count(x)}`)
        .join(", ")
    : text(v);

const byFault: Format = (v) =>
  Array.isArray(v)
    ? v
        .map((f: { at?: number; action?: string; failedRequests?: number }) => `${f.action} @${f.at} s: ${count(f.failedRequests)} failed`)
        .join("; ")
    : text(v);

const interference: Format = (v) =>
  v === true
    ? "the topology was not intact for part of the load (see the outside interference)"
    : Array.isArray(v)
      ? (v as TInterference[]).map(interferencePhrase).join("; ")
      : text(v);

const imbalance: Format = (v) =>
  isRecord(v) && isNum(v.run)
    ? `${num(v.run, 2)}× the mean over the run${isNum(v.medianPerSecond) ? `, ${num(v.medianPerSecond, 2)}× in the median second` : ""}`
    : text(v);

const drain: Format = (v) => (v === null ? "not within the drain window" : isNum(v) ? `${num(v, 0)} s` : text(v));

export type TEvidenceEntry = { label: string; format: Format };

/** Every evidence key of the run and experiment findings (findings.ts), with its label and unit. */
export const EVIDENCE: Record<string, TEvidenceEntry> = {
  // The load generator.
  tool: { label: "Load generator", format: text },
  cpus: { label: "CPU limit (cores)", format: numberWith(" cores", 2) },
  medianCpuPct: { label: "CPU used (median, % of its limit)", format: pct },
  instances: { label: "Instances", format: count },
  // The host and the containers.
  hostCpus: { label: "Host cores", format: count },
  node: { label: "Node", format: text },
  nodes: { label: "Nodes", format: count },
  nodeContainers: { label: "Containers on the node", format: count },
  totalCpuPct: { label: "Containers' CPU together (% of one core)", format: pct },
  cpuPctByRole: { label: "CPU by role (% of one core, or of the limit)", format: byName(pct) },
  pctOfLimit: { label: "CPU used (median, % of its limit)", format: pct },
  throttledPerSecond: { label: "Throttled CFS periods per second", format: numberWith("", 1) },
  throttledShare: { label: "Throttled periods (share of the periods elapsed)", format: share },
  periodsPerSecond: { label: "CFS periods elapsed per second", format: numberWith("", 1) },
  throttledMsPerSecond: { label: "Time throttled per second (its threads added up: can exceed 1,000 ms)", format: numberWith(" ms", 0) },
  periodsClamped: {
    label: "Periods",
    format: (v) =>
      v === true ? "not recorded in this run: throttled periods capped at the 10 a 100 ms period allows per second" : text(v),
  },
  replicas: { label: "Replicas", format: count },
  serviceCpuPct: { label: "Service CPU (median, % of its limit or of one core)", format: pct },
  balancerCpuPct: { label: "Balancer CPU (median, % of its limit or of one core)", format: pct },
  replicaCpuPct: { label: "Replica CPU (median, % of its limit or of one core)", format: pct },
  logsPctOfLimit: { label: "Downstream CPU (median, % of its limit)", format: pct },
  logsThrottledPerSecond: { label: "Downstream throttled CFS periods per second", format: numberWith("", 1) },
  consumerPctOfLimit: { label: "Consumers' CPU (median, % of their limit)", format: pct },
  // The pool and the broker.
  pool: { label: "Worker pool", format: pool },
  latencyP95Ms: { label: "Latency p95", format: numberWith(" ms", 1) },
  produced: { label: "Events produced", format: count },
  consumed: { label: "Events consumed", format: count },
  backlogAtStart: { label: "Events waiting at the load's start", format: count },
  maxLag: { label: "Largest consumer lag (events)", format: count },
  lagAtEnd: { label: "Lag when the load ended (events)", format: count },
  drainSeconds: { label: "Time to catch up after the load", format: drain },
  // Failures and the replicas.
  errors: { label: "Failed requests", format: count },
  errorRate: { label: "Failed share of the requests", format: (v) => (isNum(v) ? `${num(v * 100, 2)} %` : unknownText) },
  errorKinds: { label: "Failures by kind", format: byName(count) },
  outside: { label: "Failed before the first fault", format: count },
  byFault: { label: "Failures by fault", format: byFault },
  backendSource: { label: "Who said which replica answered", format: text },
  backends: { label: "Requests per replica", format: byName(count) },
  imbalance: { label: "Busiest replica (max/mean)", format: imbalance },
  interference: { label: "Outside interference", format: interference },
  // Host noise.
  cores: { label: "Host cores", format: count },
  seconds: { label: "Seconds measured", format: numberWith(" s", 0) },
  busySeconds: { label: "Seconds with other work at 40 % of the host or more", format: numberWith(" s", 0) },
  meanPct: { label: "Outside this run (mean, % of the host)", format: pct1 },
  p95Pct: { label: "Outside this run (p95 of the seconds, % of the host)", format: pct1 },
  maxPct: { label: "Outside this run (busiest second, % of the host)", format: pct1 },
  meanCores: { label: "Outside this run (mean, cores)", format: numberWith(" cores", 2) },
  workerMeanPct: { label: "The lab's worker (mean, % of the host, not counted as outside)", format: pct1 },
  hostNoiseRuns: { label: "Runs with host noise", format: count },
  hostNoiseMaxPct: { label: "Outside the runs (largest run mean, % of the host)", format: pct1 },
  // Experiments.
  variant: { label: "Variant", format: text },
  runs: { label: "Runs", format: count },
  of: { label: "Of runs", format: count },
  metric: { label: "Metric", format: (v) => (v === "rps" ? "requests per second" : text(v)) },
  ratio: { label: "Ratio to the baseline (geometric means)", format: times },
  ciLow: { label: "95 % CI of the ratio, low", format: times },
  ciHigh: { label: "95 % CI of the ratio, high", format: times },
  pValue: { label: "p-value (Welch's t on the logs)", format: numberWith("", 3) },
  cv: { label: "Coefficient of variation", format: share },
  mean: { label: "Mean (req/s)", format: numberWith(" req/s", 0) },
  sd: { label: "Standard deviation (req/s)", format: numberWith(" req/s", 0) },
  sigma: { label: "Contention σ", format: plain },
  kappa: { label: "Coherency κ", format: (v) => (isNum(v) ? v.toExponential(2) : text(v)) },
  lambda: { label: "Throughput of one unit λ (req/s)", format: numberWith(" req/s", 0) },
  peakN: { label: "Peak at N", format: numberWith("", 1) },
  ceilingX: { label: "Ceiling (req/s)", format: numberWith(" req/s", 0) },
  r2: { label: "Fit R²", format: plain },
};

export const hasEvidenceLabel = (key: string): boolean => Object.hasOwn(EVIDENCE, key);

export type TEvidenceLine = { key: string; label: string; text: string };

/** A finding's evidence as lines to read, in its order; undefined values are left out. A key without an entry reads as itself. */
export function evidenceLines(evidence: Readonly<Record<string, unknown>>): TEvidenceLine[] {
  return Object.entries(evidence)
    .filter(([, v]) => v !== undefined)
    .map(([key, v]) => {
      const entry = EVIDENCE[key];
      return { key, label: entry?.label ?? key, text: entry ? entry.format(v) : JSON.stringify(v) };
    });
}
