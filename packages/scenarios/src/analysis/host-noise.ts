import { round } from "./stats";

/**
 * Host noise: the host's CPU used outside the run's containers during the load. The worker reads
 * the host's counters (/proc/stat, the host's even from inside a Compose container) at each second
 * of the load; a second's host CPU minus the run's containers' CPU of that second (Docker's stats,
 * which divide by the same counters) minus the worker's own process is what other work took.
 */

/** The aggregate `cpu` line of /proc/stat, in clock ticks since boot; `cores` = the `cpuN` lines (online CPUs). */
export type HostCpuCounters = { busy: number; total: number; cores: number };

/**
 * Parses /proc/stat. Busy is user + nice + system + steal (steal: another VM on the hypervisor had
 * the core, as much noise as a process here). Interrupt time (irq, softirq) is not busy: at a run's
 * request rates it is mostly the kernel carrying the run's own packets between its containers
 * (11.2 % of the host at 17,912 req/s through nginx, docs/BENCHMARKS.md), which Docker charges to
 * no container, so it would read as outside work on a quiet host. Idle and iowait are not busy;
 * guest and guest_nice are already inside user and nice (proc(5)), so they are not added twice. The
 * total is every tick.
 */
export function parseProcStat(text: string): HostCpuCounters {
  let counters: Omit<HostCpuCounters, "cores"> | undefined;
  let cores = 0;
  for (const line of text.split("\n")) {
    if (/^cpu\d+\s/.test(line)) cores++;
    if (line.startsWith("cpu ")) counters = parseCpuLine(line);
  }
  if (!counters) throw new Error("/proc/stat has no aggregate cpu line");
  if (cores === 0) throw new Error("/proc/stat lists no cpuN line");
  return { ...counters, cores };
}

/** The aggregate `cpu` line's busy and total ticks (parseProcStat says which count as busy). */
function parseCpuLine(line: string): Omit<HostCpuCounters, "cores"> {
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  if (fields.length < 4 || fields.some((n) => !Number.isFinite(n) || n < 0))
    throw new Error(`/proc/stat: cannot read the cpu line "${line}"`);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  const busy = user + nice + system + steal;
  return { busy, total: busy + idle + iowait + irq + softirq };
}

/**
 * The probe a cluster node's CPU counters are read with (host noise per node on separate machines):
 * bash builtins only, so it forks nothing while it runs. Every PROBE_INTERVAL_MS it prints one line,
 * `<unix time in s, µs> <cores> <the aggregate cpu line of /proc/stat>`; the worker follows its
 * output and reads each second of the load off the counters, interpolated at the second's bounds.
 */
export const PROBE_INTERVAL_MS = 250;
export const NODE_CPU_PROBE_SCRIPT = [
  "exec 3<> <(:)",
  "while :; do",
  "  n=0; agg=",
  '  while IFS= read -r l; do case $l in "cpu "*) agg=$l ;; cpu[0-9]*) n=$((n + 1)) ;; esac; done </proc/stat',
  '  echo "$EPOCHREALTIME $n $agg"',
  `  read -t ${PROBE_INTERVAL_MS / 1000} -u 3 || :`,
  "done",
].join("\n");

/** One line of the probe: when (unix ms, the node's clock) and the counters then. */
export type TCounterSample = { atMs: number; counters: HostCpuCounters };

/** A probe's line, or undefined for anything else it printed. */
export function parseProbeLine(line: string): TCounterSample | undefined {
  const m = /^(\d+(?:[.,]\d+)?) (\d+) (cpu .*)$/.exec(line.trim());
  if (!m || Number(m[2]) === 0) return undefined;
  try {
    return { atMs: Number(m[1]!.replace(",", ".")) * 1000, counters: { ...parseCpuLine(m[3]!), cores: Number(m[2]) } };
  } catch {
    return undefined;
  }
}

/** The counters at `atMs`, interpolated between the samples around it (in time order); undefined outside them. */
export function countersAt(samples: readonly TCounterSample[], atMs: number): HostCpuCounters | undefined {
  return interpolate(
    samples,
    samples.findIndex((s) => s.atMs >= atMs),
    atMs,
  );
}

/** countersAt, given the index of the first sample at or after `atMs` (-1: none). */
function interpolate(samples: readonly TCounterSample[], after: number, atMs: number): HostCpuCounters | undefined {
  if (after < 0) return undefined;
  const b = samples[after]!;
  if (b.atMs === atMs) return b.counters;
  if (after === 0) return undefined;
  const a = samples[after - 1]!;
  const f = (atMs - a.atMs) / (b.atMs - a.atMs);
  const at = (x: number, y: number) => x + (y - x) * f;
  return { busy: at(a.counters.busy, b.counters.busy), total: at(a.counters.total, b.counters.total), cores: b.counters.cores };
}

/**
 * A node's seconds of the load from its probe's samples: second t is the busy CPU between the
 * counters at startMs + t s and startMs + (t + 1) s. A second the samples do not span is left out.
 * The worker's own CPU is not on that machine (0). One pass over the samples (an hour's run: 14,400).
 */
export function secondsFromSamples(samples: readonly TCounterSample[], startMs: number, seconds: number): THostReading[] {
  const sorted = [...samples].sort((a, b) => a.atMs - b.atMs);
  // The counters at each second's bound, the bounds in order: a cursor walks the samples once.
  const bounds: (HostCpuCounters | undefined)[] = [];
  let next = 0;
  for (let t = 0; t <= seconds; t++) {
    const atMs = startMs + t * 1000;
    while (next < sorted.length && sorted[next]!.atMs < atMs) next++;
    bounds.push(interpolate(sorted, next < sorted.length ? next : -1, atMs));
  }
  const out: THostReading[] = [];
  for (let t = 0; t < seconds; t++) {
    const a = bounds[t];
    const b = bounds[t + 1];
    const hostCpuPct = a && b ? hostBusyPct(a, b) : undefined;
    if (hostCpuPct !== undefined) out.push({ t, cores: b!.cores, hostCpuPct, workerCpuPct: 0 });
  }
  return out;
}

/**
 * The host's busy CPU between two readings in % of one core (100 = one core busy, cores × 100 = all),
 * the unit of Docker's CPU % and of the run's container samples. Undefined when no tick elapsed.
 */
export function hostBusyPct(before: HostCpuCounters, after: HostCpuCounters): number | undefined {
  const total = after.total - before.total;
  const busy = after.busy - before.busy;
  if (!(total > 0) || busy < 0) return undefined;
  return round((Math.min(busy, total) / total) * after.cores * 100, 2);
}

/** One second of the load as stored (host_samples); the CPU figures in % of one core. */
export type THostSecond = {
  t: number;
  cores: number;
  hostCpuPct: number;
  /** The run's containers together in this second. */
  runCpuPct: number;
  /** The worker's own process (the lab's control plane doing the run's bookkeeping). */
  workerCpuPct: number;
  /** What else used the host: host − run − worker, at least 0; null when a container's reading of the second is missing. */
  otherCpuPct: number | null;
  /** The engine's node it was read on (absent: "local", the lab's own host). */
  node?: string;
};

export type THostReading = { t: number; cores: number; hostCpuPct: number; workerCpuPct: number };
export type TContainerCpu = { t: number; container: string; cpuPct: number };

/**
 * Subtracts the run's containers' CPU of each second from the host's. A second that lacks a reading
 * of a container which has one in the seconds before and after (Docker's readings drifted over a
 * second and the two landed in one) would count that container as outside: its `otherCpuPct` is
 * null, unknown rather than a false spike.
 */
export function hostSeconds(host: readonly THostReading[], containers: readonly TContainerCpu[]): THostSecond[] {
  const byT = new Map<number, Map<string, number>>();
  for (const c of containers) {
    let second = byT.get(c.t);
    if (!second) byT.set(c.t, (second = new Map()));
    second.set(c.container, c.cpuPct);
  }
  const names = (t: number) => byT.get(t) ?? new Map<string, number>();
  return host.map((h) => {
    const rows = names(h.t);
    const runCpuPct = round(
      [...rows.values()].reduce((a, b) => a + b, 0),
      2,
    );
    const missing = [...names(h.t - 1).keys()].some((c) => !rows.has(c) && names(h.t + 1).has(c));
    return {
      t: h.t,
      cores: h.cores,
      hostCpuPct: h.hostCpuPct,
      runCpuPct,
      workerCpuPct: h.workerCpuPct,
      otherCpuPct: rows.size === 0 || missing ? null : round(Math.max(0, h.hostCpuPct - runCpuPct - h.workerCpuPct), 2),
    };
  });
}

/**
 * On a cluster of separate machines: each node's seconds (its own /proc/stat, read on the node)
 * less the CPU of the run's containers placed on that node only, marked with the node's name.
 * Containers `containerNodes` does not place count on no node.
 */
export function hostSecondsByNode(
  hostByNode: Readonly<Record<string, readonly THostReading[]>>,
  containers: readonly TContainerCpu[],
  containerNodes: Readonly<Record<string, string>>,
): Record<string, THostSecond[]> {
  return Object.fromEntries(
    Object.entries(hostByNode).map(([node, readings]) => [
      node,
      hostSeconds(
        readings,
        containers.filter((c) => containerNodes[c.container] === node),
      ).map((s) => ({ ...s, node })),
    ]),
  );
}

/**
 * The outside share over the load, in % of the host (100 = every core): mean, p95 and max over the
 * seconds with a known figure, the mean also in cores; the worker's own mean beside it.
 */
export type THostNoise = {
  cores: number;
  seconds: number;
  /** Seconds in which other work used at least HOST_NOISE.busySecondPct % of the host. */
  busySeconds: number;
  meanPct: number;
  p95Pct: number;
  maxPct: number;
  meanCores: number;
  workerMeanPct: number;
};

export function hostNoiseSummary(seconds: readonly THostSecond[]): THostNoise | undefined {
  const known = seconds.filter((s): s is THostSecond & { otherCpuPct: number } => s.otherCpuPct !== null);
  if (known.length === 0) return undefined;
  const cores = Math.max(...known.map((s) => s.cores));
  const shares = known.map((s) => s.otherCpuPct / s.cores).sort((a, b) => a - b);
  const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
  const worker = known.reduce((n, s) => n + s.workerCpuPct / s.cores, 0) / known.length;
  return {
    cores,
    seconds: known.length,
    busySeconds: shares.filter((x) => x >= HOST_NOISE.busySecondPct).length,
    meanPct: round(mean, 1),
    p95Pct: round(quantile(shares, 0.95), 1),
    maxPct: round(shares.at(-1)!, 1),
    meanCores: round((mean * cores) / 100, 2),
    workerMeanPct: round(worker, 1),
  };
}

/** Nearest-rank quantile of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * When other work took a noticeable share of the host: a mean of at least `meanPct` % of it over the
 * load, or a burst: at least `burstSeconds` seconds, and `burstShare` of the load's, in which it used
 * `busySecondPct` % or more (one odd second is not noise). Chosen from runs measured on the 2-core
 * development machine on 2026-11-26 (docs/BENCHMARKS.md, "Host noise").
 */
export const HOST_NOISE = { meanPct: 20, busySecondPct: 40, burstSeconds: 3, burstShare: 0.1 } as const;

export const isHostNoisy = (n: THostNoise | undefined): n is THostNoise =>
  n !== undefined &&
  (n.meanPct >= HOST_NOISE.meanPct || (n.busySeconds >= HOST_NOISE.burstSeconds && n.busySeconds >= HOST_NOISE.burstShare * n.seconds));
