import { ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { hostBusyPct, HOST_NOISE, parseProcStat, runFindings } from "@scalelab/scenarios/analysis";
import { TRunCreateInput, ZRunSummary } from "@scalelab/scenarios/contract";
import { afterEach, describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * Host noise for real, through the queue and the worker, against the real Docker engine, Postgres
 * and Redis: a process outside the run (a shell loop, a child of this test) keeps a core busy during
 * a 10 s run, and the run's host samples, summary, timeline and findings say other work took a share
 * of the host; the same run without it does not. The quiet half needs the host to itself (as in CI):
 * when other work already keeps it busy before the run, it fails saying so, not silently.
 */
const ctx = useLabWorker("host-noise");

const RUN: TRunCreateInput = {
  topology: { service: { replicas: 1, cpus: 0.5, memoryMb: 64 } },
  workload: { arrivalRate: 100, durationSeconds: 10, requestTimeoutMs: 1000 },
};

/** How long the quiet half waits for the host to be quiet before it fails saying it is not. */
const QUIET_WAIT_MS = 120_000;

let spinner: ChildProcess | undefined;
afterEach(() => {
  spinner?.kill("SIGKILL");
  spinner = undefined;
});

async function run(name: string) {
  const id = await ctx.lab.createRun({ name, ...RUN });
  const row = await ctx.lab.finished(id);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  const timeline = events.map((e) => `${e.level} ${e.message}`);
  expect(row.error, timeline.join("\n")).toBeNull();
  expect(row.status, timeline.join("\n")).toBe("succeeded");
  const summary = ZRunSummary.parse(row.summary);
  const samples = await ctx.lab.db.hostSample.findMany({ where: { runId: id }, orderBy: { t: "asc" } });
  const findings = runFindings({ summary, hostCpus: summary.hostNoise?.cores ?? 2, openModel: true });
  console.log(`${name}: hostNoise ${JSON.stringify(summary.hostNoise)}\n  findings ${findings.map((f) => f.code).join(", ")}`);
  return { id, summary, samples, timeline, findings };
}

/** The host's busy CPU over `ms`, in % of the host. */
async function hostBusyShare(ms: number): Promise<number> {
  const a = parseProcStat(readFileSync("/proc/stat", "utf8"));
  await new Promise((r) => setTimeout(r, ms));
  const b = parseProcStat(readFileSync("/proc/stat", "utf8"));
  return hostBusyPct(a, b)! / b.cores;
}

describe("host noise", () => {
  it("a core kept busy outside the run: per-second host samples, the summary's share, a timeline warning and the host-noise finding", async () => {
    spinner = spawn("sh", ["-c", "while :; do :; done"], { stdio: "ignore" });
    const { summary, samples, timeline, findings } = await run("host noise: a busy core outside the run");
    spinner.kill("SIGKILL");

    // One row per second of the load, each with the parts of the host's CPU (in % of one core).
    expect(samples.length).toBeGreaterThanOrEqual(8);
    expect(samples.length).toBeLessThanOrEqual(10);
    for (const s of samples) expect(s.hostCpuPct).toBeLessThanOrEqual(s.cores * 100);
    // A second without the containers' readings (Docker's first, or two readings drifted into one second) is unknown, not outside work.
    const known = samples.filter((s) => s.otherCpuPct !== null);
    expect(known.length).toBeGreaterThanOrEqual(samples.length - 3);
    for (const s of known) {
      expect(s.runCpuPct).toBeGreaterThan(0);
      expect(s.otherCpuPct).toBeCloseTo(Math.max(0, s.hostCpuPct - s.runCpuPct - s.workerCpuPct), 1);
    }
    // The loop is one busy core (of 2 on the development machine and in CI).
    const noise = summary.hostNoise!;
    expect(noise.meanPct).toBeGreaterThanOrEqual(HOST_NOISE.meanPct);
    expect(noise.meanCores).toBeGreaterThan(0.4);
    expect(timeline).toContainEqual(
      expect.stringMatching(/^warn other work on the host used a mean [\d.]+ % of its \d+ cores outside this run's containers/),
    );
    expect(findings[0]).toMatchObject({ code: "host_noise", level: "warn" });
  });

  it("the same run on a quiet host: measured, and no host-noise finding", async () => {
    // Waits (bounded) for other work to end, e.g. a build the test command runs beside the tests.
    let before = await hostBusyShare(3_000);
    for (const until = Date.now() + QUIET_WAIT_MS; before >= HOST_NOISE.meanPct / 2 && Date.now() < until;)
      before = await hostBusyShare(3_000);
    expect(
      before,
      `the host is busy with other work (${before.toFixed(1)} % of its CPU for 3 s, nothing of this test running, still after ${QUIET_WAIT_MS / 1000} s): this half needs the host to itself, as in CI`,
    ).toBeLessThan(HOST_NOISE.meanPct / 2);
    const { summary, samples, findings } = await run("host noise: a quiet host");
    expect(samples.length).toBeGreaterThanOrEqual(8);
    expect(summary.hostNoise!.meanPct).toBeLessThan(HOST_NOISE.meanPct);
    expect(findings.map((f) => f.code)).not.toContain("host_noise");
  });
});
