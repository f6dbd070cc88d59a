import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { Logger } from "../log";
import { followHostCpu } from "./host-cpu";

const log: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe("followHostCpu", () => {
  it("reads this host's /proc/stat at each second of the load: busy CPU within 0–cores × 100, the worker's own beside it", async () => {
    const host = followHostCpu({ log });
    host.begin(Date.now());
    // The worker itself spins for 200 ms of CPU time (longer in wall time on a busy host): its own share shows.
    const before = process.cpuUsage();
    for (let used = 0; used < 200_000;) {
      const u = process.cpuUsage(before);
      used = u.user + u.system;
    }
    await new Promise((r) => setTimeout(r, 2_300));
    host.stop();
    const seconds = host.seconds();
    expect(seconds.map((s) => s.t).slice(0, 2)).toEqual([0, 1]);
    for (const s of seconds) {
      expect(s.cores).toBe(availableParallelism());
      expect(s.hostCpuPct).toBeGreaterThanOrEqual(0);
      expect(s.hostCpuPct).toBeLessThanOrEqual(s.cores * 100);
    }
    const worker = seconds.reduce((n, s) => n + s.workerCpuPct, 0);
    expect(worker).toBeGreaterThan(19);
    expect(worker).toBeLessThan(seconds.length * 100);
  });

  it("says nothing, and warns once, when the counters cannot be read", async () => {
    const warnings: string[] = [];
    const host = followHostCpu({ log: { ...log, warn: (m: string) => void warnings.push(m) }, statPath: "/nonexistent/stat" });
    host.begin(Date.now());
    await new Promise((r) => setTimeout(r, 1_200));
    host.stop();
    expect(host.seconds()).toEqual([]);
    expect(warnings).toEqual(["could not read the host's CPU counters; host noise is not measured"]);
  });
});
