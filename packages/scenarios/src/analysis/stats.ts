/** Summary and Docker-stats arithmetic. Pure functions; inputs are plain numbers or JSON shapes. */

export const round = (value: number, digits = 3): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

export function perSecond(count: number, seconds: number): number {
  return seconds > 0 ? round(count / seconds) : 0;
}

export function errorRate(errors: number, requests: number): number {
  return requests > 0 ? round(errors / requests, 6) : 0;
}

/**
 * k6's dashboard reports a Rate metric (e.g. http_req_failed) as a fraction truncated to five
 * decimals; the count of failed requests is recovered from it and the request count.
 */
export function countFromRate(rate: number, total: number): number {
  return Math.min(total, Math.round(rate * total));
}

/** The part of a Docker stats reading (GET /containers/{id}/stats) used here; cgroup v1 and v2. */
export type DockerStatsReading = {
  read?: string;
  /** When the stream's previous reading (the one precpu_stats repeats) was read; Go's zero time on the first. */
  preread?: string;
  cpu_stats?: CpuStats;
  precpu_stats?: CpuStats;
  memory_stats?: { usage?: number; stats?: Record<string, number> };
  /** Counters per interface since the container's network namespace was made; absent without a network. */
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
};
type CpuStats = {
  cpu_usage?: { total_usage?: number; percpu_usage?: number[] };
  system_cpu_usage?: number;
  online_cpus?: number;
  throttling_data?: { periods?: number; throttled_periods?: number; throttled_time?: number };
};

export type ContainerUsage = {
  cpuPct: number;
  memBytes: number;
  throttledPeriods: number;
  /** CFS periods that elapsed in the interval (with runnable tasks); 0 without a CPU limit. At least `throttledPeriods`. */
  periods: number;
  /** Time the container's tasks spent throttled in the interval; cgroup v1 adds it up per CPU, so it can exceed the interval. */
  throttledMs: number;
  /** Bytes per second received and sent over all interfaces; absent without a network or a previous reading of the same stream. */
  netRxBps?: number;
  netTxBps?: number;
};

/**
 * CPU % as `docker stats` computes it: Δ container CPU time / Δ host CPU time × online CPUs × 100
 * (so one fully used core is 100 %). Throttled periods and time are those of the interval between
 * the two readings; memory excludes the inactive page cache like `docker stats` does. Undefined for a
 * reading without a previous one (the first of a stream), which covers no interval, for a stopped
 * container's empty reading and across a restart (the counters start again from 0).
 *
 * Docker gives previous CPU counters (precpu_stats) but no previous network counters: the network
 * rates need `previous`, the stream's reading before this one (its `read` is this one's `preread`).
 */
export function containerUsage(reading: DockerStatsReading, previous?: DockerStatsReading): ContainerUsage | undefined {
  const cur = reading.cpu_stats;
  const pre = reading.precpu_stats;
  const dCpu = (cur?.cpu_usage?.total_usage ?? 0) - (pre?.cpu_usage?.total_usage ?? 0);
  const dSys = (cur?.system_cpu_usage ?? 0) - (pre?.system_cpu_usage ?? 0);
  if (!pre?.system_cpu_usage || !cur?.system_cpu_usage || dSys <= 0 || dCpu < 0) return undefined;
  const cpus = cur.online_cpus || cur.cpu_usage?.percpu_usage?.length || 1;
  const throttled = (cur.throttling_data?.throttled_periods ?? 0) - (pre.throttling_data?.throttled_periods ?? 0);
  const periods = (cur.throttling_data?.periods ?? 0) - (pre.throttling_data?.periods ?? 0);
  const throttledNs = (cur.throttling_data?.throttled_time ?? 0) - (pre.throttling_data?.throttled_time ?? 0);
  const mem = reading.memory_stats;
  const cache = mem?.stats?.total_inactive_file ?? mem?.stats?.inactive_file ?? 0;
  const net = networkRates(reading, previous);
  return {
    cpuPct: round((dCpu / dSys) * cpus * 100, 2),
    memBytes: Math.max(0, (mem?.usage ?? 0) - cache),
    throttledPeriods: Math.max(0, Math.min(throttled, Math.max(periods, 0))),
    periods: Math.max(0, periods),
    throttledMs: round(Math.max(0, throttledNs) / 1e6, 1),
    ...(net && { netRxBps: net.rx, netTxBps: net.tx }),
  };
}

function networkTotals(reading: DockerStatsReading): { rx: number; tx: number } | undefined {
  const interfaces = Object.values(reading.networks ?? {});
  if (interfaces.length === 0) return undefined;
  return interfaces.reduce((sum, n) => ({ rx: sum.rx + (n.rx_bytes ?? 0), tx: sum.tx + (n.tx_bytes ?? 0) }), { rx: 0, tx: 0 });
}

/** Δ bytes / Δ read time against the stream's previous reading; undefined when the counters went back (a new network namespace). */
function networkRates(reading: DockerStatsReading, previous: DockerStatsReading | undefined): { rx: number; tx: number } | undefined {
  if (!previous?.read || !reading.read || previous.read !== reading.preread) return undefined;
  const seconds = (Date.parse(reading.read) - Date.parse(previous.read)) / 1000;
  const now = networkTotals(reading);
  const before = networkTotals(previous);
  if (!(seconds > 0) || !now || !before || now.rx < before.rx || now.tx < before.tx) return undefined;
  return { rx: round((now.rx - before.rx) / seconds, 1), tx: round((now.tx - before.tx) / seconds, 1) };
}

/** Share (0–1) of the readings in which a container used at least `threshold` of its CPU limit. */
export function saturatedShare(cpuPcts: readonly number[], limitCpus: number, threshold = LOADGEN_SATURATION.threshold): number {
  if (cpuPcts.length === 0) return 0;
  const busy = cpuPcts.filter((pct) => pct >= limitCpus * 100 * threshold).length;
  return round(busy / cpuPcts.length, 3);
}

/**
 * When a load generator counts as saturated: in at least `share` of the seconds it used at least
 * `threshold` of its CPU limit. Under a CFS quota, throttling starts before 100 %, so a k6 at
 * 80 % of its limit is already the bottleneck more often than not.
 */
export const LOADGEN_SATURATION = { threshold: 0.8, share: 0.5 } as const;

export type TLoadgenUse = { cpus: number; medianCpuPct: number; saturated: boolean };

/**
 * How hard the load generator worked, from its per-second CPU readings (% of one core) and its
 * CPU limit. `medianCpuPct` is relative to the limit (100 = the whole limit). The one rule the
 * worker stores with a run and the dashboard shows live; undefined without readings.
 */
export function loadgenUse(cpuPcts: readonly number[], limitCpus: number): TLoadgenUse | undefined {
  if (cpuPcts.length === 0 || limitCpus <= 0) return undefined;
  return {
    cpus: limitCpus,
    medianCpuPct: round(median(cpuPcts) / limitCpus, 1),
    saturated: saturatedShare(cpuPcts, limitCpus) >= LOADGEN_SATURATION.share,
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One container-second as stored; the resource columns are null in rows recorded before they existed. */
export type UsageReading = {
  role: string;
  container: string;
  cpuPct: number;
  throttledPeriods: number;
  /** CFS periods elapsed in the second; null in rows recorded before they were. */
  periods?: number | null;
  memBytes?: number | bigint;
  throttledMs?: number | null;
  netRxBps?: number | null;
  netTxBps?: number | null;
};

export type TRoleUse = {
  containers: number;
  /** Median over every (container, second) reading, in % of one core. */
  medianCpuPct: number;
  /** The same median in % of the container's CPU limit; absent without a limit. */
  pctOfLimit?: number;
  /**
   * Throttled CFS periods per container-second, each second's count at most its elapsed periods; in
   * rows recorded without the periods, clamped at 10 (a 100 ms period, Docker's, elapses 10 times a second).
   */
  throttledPerSecond: number;
  /** Throttled over elapsed periods (0–1), and elapsed periods per container-second; absent without recorded periods or a CPU limit. */
  throttledShare?: number;
  periodsPerSecond?: number;
  /** Milliseconds spent throttled per container-second. */
  throttledMsPerSecond?: number;
  /** The largest memory use of one container of the role in any second. */
  maxMemBytes?: number;
  /** Median network bytes per second received and sent by one container of the role. */
  medianNetRxBps?: number;
  medianNetTxBps?: number;
};

/** CFS periods per second at Docker's period (100 ms): the most an old row's throttled count can honestly be. */
export const PERIODS_PER_SECOND = 10;

const known = (values: readonly (number | null | undefined)[]): number[] => values.filter((v): v is number => typeof v === "number");

/**
 * How each role (app replicas, balancer, load generator) used the CPU, memory and network over a
 * run: what explains a result (replicas pinned at their limit and throttled, an idle balancer, a
 * busy k6). A figure no reading has (rows from before it was recorded) is left out.
 */
export function roleUse(readings: readonly UsageReading[], limits: Readonly<Record<string, number | undefined>>): Record<string, TRoleUse> {
  const byRole = new Map<string, UsageReading[]>();
  for (const r of readings) {
    const rs = byRole.get(r.role);
    if (rs) rs.push(r);
    else byRole.set(r.role, [r]);
  }
  const out: Record<string, TRoleUse> = {};
  for (const [role, rs] of byRole) {
    const cpu = median(rs.map((r) => r.cpuPct));
    const limit = limits[role];
    const throttledMs = known(rs.map((r) => r.throttledMs));
    const mem = known(rs.map((r) => (r.memBytes === undefined ? undefined : Number(r.memBytes))));
    const rx = known(rs.map((r) => r.netRxBps));
    const withPeriods = rs.filter((r): r is UsageReading & { periods: number } => typeof r.periods === "number");
    const elapsed = withPeriods.reduce((n, r) => n + r.periods, 0);
    const throttledOf = (r: UsageReading) => Math.min(r.throttledPeriods, typeof r.periods === "number" ? r.periods : PERIODS_PER_SECOND);
    const tx = known(rs.map((r) => r.netTxBps));
    out[role] = {
      containers: new Set(rs.map((r) => r.container)).size,
      medianCpuPct: round(cpu, 1),
      ...(limit !== undefined && limit > 0 && { pctOfLimit: round(cpu / limit, 1) }),
      throttledPerSecond: round(rs.reduce((n, r) => n + throttledOf(r), 0) / rs.length, 2),
      // No period elapsed: no CPU limit (nothing to throttle), so no share either.
      ...(elapsed > 0 && {
        throttledShare: round(withPeriods.reduce((n, r) => n + throttledOf(r), 0) / elapsed, 3),
        periodsPerSecond: round(elapsed / withPeriods.length, 2),
      }),
      ...(throttledMs.length > 0 && { throttledMsPerSecond: round(throttledMs.reduce((a, b) => a + b, 0) / throttledMs.length, 1) }),
      ...(mem.length > 0 && { maxMemBytes: mem.reduce((a, b) => Math.max(a, b)) }),
      ...(rx.length > 0 && { medianNetRxBps: round(median(rx), 1) }),
      ...(tx.length > 0 && { medianNetTxBps: round(median(tx), 1) }),
    };
  }
  return out;
}
