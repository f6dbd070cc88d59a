import { readFileSync } from "node:fs";
import { HostCpuCounters, hostBusyPct, parseProcStat, round, THostReading } from "@scalelab/scenarios/analysis";
import { errorMessage, Logger } from "../log";

/** The host's CPU counters: /proc/stat is the host's, also inside a Compose container (proc(5); not namespaced). */
export const PROC_STAT = "/proc/stat";

type Mark = { stat: HostCpuCounters; cpu: NodeJS.CpuUsage; wallNs: bigint };

/**
 * Reads the host's CPU counters and the worker's own CPU time at each whole second of the load from
 * `begin` (t = 0 at the load's start, as for the samples), so that second t is the host's busy CPU
 * between marks t and t + 1 and the worker's own share of it. The worker is the lab's control plane
 * doing this run's bookkeeping (stats streams, inserts, the live channel), present in every run: it
 * is measured and kept apart, not counted as outside work. Nothing is stored here: `seconds()` gives
 * the readings, subtracted from the containers' CPU once the load is over (collect.ts).
 */
export function followHostCpu(opts: { log: Logger; statPath?: string }) {
  const path = opts.statPath ?? PROC_STAT;
  const marks = new Map<number, Mark>();
  let startMs: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failed = false;

  // Synchronous (a few kB of procfs, tens of µs): the counters, the worker's CPU and the clock are read at one instant.
  const mark = (k: number) => {
    try {
      const stat = parseProcStat(readFileSync(path, "utf8"));
      marks.set(k, { stat, cpu: process.cpuUsage(), wallNs: process.hrtime.bigint() });
    } catch (err) {
      if (!failed) opts.log.warn("could not read the host's CPU counters; host noise is not measured", { path, error: errorMessage(err) });
      failed = true;
    }
  };

  /** Marks second k now and arms the timer for the next whole second of the load. */
  const step = (k: number) => {
    if (stopped) return;
    mark(k);
    const next = startMs! + (k + 1) * 1000;
    timer = setTimeout(() => step(Math.max(k + 1, Math.floor((Date.now() - startMs!) / 1000))), Math.max(0, next - Date.now()));
  };

  return {
    begin(at: number) {
      if (startMs !== undefined) return;
      startMs = at;
      // The load's start is known a moment after it began: its first mark is now, for second 0.
      step(Math.max(0, Math.floor((Date.now() - at) / 1000)));
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    /** Every second between two consecutive marks, in % of one core. */
    seconds(): THostReading[] {
      const out: THostReading[] = [];
      for (const [k, a] of [...marks].sort(([x], [y]) => x - y)) {
        const b = marks.get(k + 1);
        if (!b) continue;
        const hostCpuPct = hostBusyPct(a.stat, b.stat);
        const wallUs = Number(b.wallNs - a.wallNs) / 1000;
        if (hostCpuPct === undefined || !(wallUs > 0)) continue;
        const workerUs = b.cpu.user - a.cpu.user + (b.cpu.system - a.cpu.system);
        out.push({ t: k, cores: b.stat.cores, hostCpuPct, workerCpuPct: round((workerUs / wallUs) * 100, 2) });
      }
      return out;
    },
  };
}

export type HostCpuFollower = ReturnType<typeof followHostCpu>;
