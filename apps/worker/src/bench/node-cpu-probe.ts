import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseProbeLine, secondsFromSamples, TCounterSample } from "@scalelab/scenarios/analysis";
import Docker from "dockerode";
import { followHostCpu } from "../pipeline/host-cpu";
import { DockerProvisioner } from "../provisioner/docker";

/*
 * What a node's CPU probe costs (Provisioner.nodeCpuProbes, host noise per node on separate
 * machines), and how its seconds agree with the worker's own reading: a probe container on the
 * local engine, its output followed for `--seconds`, `--rounds` times. Per round: the CPU of the
 * probe container, of dockerd and containerd (with their shims) and of this process, in % of one
 * core; and the probe's per-second busy CPU against this host's /proc/stat read at the same seconds.
 *
 *   pnpm --filter @scalelab/worker bench:node-cpu-probe [--seconds 30] [--rounds 3]
 */
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg("seconds", 30);
const ROUNDS = arg("rounds", 3);
const TICKS = 100; // USER_HZ

const docker = new Docker();
const local = new DockerProvisioner(docker);

/** CPU seconds of every process whose command is one of `names` (dockerd, containerd, the shims). */
function cpuSecondsOf(names: readonly string[]): number {
  const pids = execFileSync("ps", ["-eo", "pid=,comm="], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm]) => comm !== undefined && names.some((n) => comm.startsWith(n)))
    .map(([pid]) => pid!);
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / TICKS;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

type Round = { probePct: number; enginePct: number; selfPct: number; lines: number; diffMedian: number; diffMax: number };

async function round(image: string, k: number): Promise<Round> {
  const name = `sl-bench-cpu-probe-${process.pid}-${k}`;
  const id = await local.startCpuProbe(name, image, { "scalelab.managed": "true", "scalelab.bench": "node-cpu-probe" });
  const container = docker.getContainer(id);
  const usage = async () =>
    ((await container.stats({ stream: false })) as { cpu_stats: { cpu_usage: { total_usage: number } } }).cpu_stats.cpu_usage.total_usage /
    1e9;
  const ctl = new AbortController();
  const samples: TCounterSample[] = [];
  const following = (async () => {
    for await (const line of local.followOutput(id, ctl.signal)) {
      const s = parseProbeLine(line);
      if (s) samples.push(s);
    }
  })();
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    const host = followHostCpu({ log: { info: () => undefined, warn: () => undefined, error: () => undefined } });
    const startMs = Date.now();
    host.begin(startMs);
    const engine0 = cpuSecondsOf(["dockerd", "containerd"]);
    const probe0 = await usage();
    const self0 = process.cpuUsage();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const self = process.cpuUsage(self0);
    const probe = (await usage()) - probe0;
    const engine = cpuSecondsOf(["dockerd", "containerd"]) - engine0;
    await new Promise((r) => setTimeout(r, 1_000));
    host.stop();
    const direct = new Map(host.seconds().map((h) => [h.t, h.hostCpuPct]));
    const diffs = secondsFromSamples(samples, startMs, SECONDS)
      .filter((p) => direct.has(p.t))
      .map((p) => Math.abs(p.hostCpuPct - direct.get(p.t)!));
    return {
      probePct: (probe / SECONDS) * 100,
      enginePct: (engine / SECONDS) * 100,
      selfPct: ((self.user + self.system) / 1e6 / SECONDS) * 100,
      lines: samples.length,
      diffMedian: median(diffs),
      diffMax: Math.max(...diffs),
    };
  } finally {
    ctl.abort();
    await following.catch(() => undefined);
    await container.remove({ force: true });
  }
}

async function main() {
  const images = await docker.listImages({ filters: { reference: ["scalelab/k6"] } });
  const image = images[0]?.RepoTags?.find((t) => t.startsWith("scalelab/k6:"));
  if (!image) throw new Error("no scalelab/k6 image on this engine: run `pnpm images --lab` (or scripts/up.sh) first");
  // The engine's own CPU with no probe, over as long, before each round.
  const idle: number[] = [];
  const rounds: Round[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const e0 = cpuSecondsOf(["dockerd", "containerd"]);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    idle.push(((cpuSecondsOf(["dockerd", "containerd"]) - e0) / SECONDS) * 100);
    rounds.push(await round(image, k));
  }
  const col = (key: keyof Round, digits = 2) => rounds.map((r) => r[key].toFixed(digits)).join(", ");
  console.log(`probe ${image}, followed ${SECONDS} s, ${ROUNDS} rounds (host load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`);
  console.log(`probe lines received:                          ${col("lines", 0)}`);
  console.log(`probe container CPU (% of one core):           ${col("probePct")}`);
  console.log(`dockerd + containerd CPU, no probe (% core):   ${idle.map((x) => x.toFixed(2)).join(", ")}`);
  console.log(`dockerd + containerd CPU (% of one core):      ${col("enginePct")}`);
  console.log(`this process's CPU (% of one core):            ${col("selfPct")}`);
  console.log(`|probe − direct| per second, median (% core):  ${col("diffMedian")}`);
  console.log(`|probe − direct| per second, max (% core):     ${col("diffMax")}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
