import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * How the test script splits the worker's integration files (scripts/test.sh): the files that
 * measure something the host's other work would move run one at a time on a quiet host; every
 * other file only checks what a run did (with loads far below what the host can serve, where the
 * load is not the point), and runs in one of the shared lanes, side by side with
 * the other lanes (each with its own database, Redis index and instance label).
 *
 * A file counts as quiet when one of its assertions compares throughput, latency or CPU use with
 * a bound the host's other work could cross:
 * - host-noise: the quiet half asserts that nothing else used the host;
 * - components-throughput: a blocking pool's req/s capped near its size, an async one above twice that,
 *   RabbitMQ at least 1.5× the sync call's req/s;
 * - faults: every fault applied within 1 s of its second (a run beside two others took 1.18 s);
 * - fault-proxy: added latency between 200 and 250 ms, the direct path under 50 ms;
 * - container-resources: a replica at its CPU limit throttled in (nearly) every second.
 */
export const QUIET = ["host-noise", "components-throughput", "faults", "fault-proxy", "container-resources"] as const;

/**
 * The files that need the test Swarm cluster (scripts/swarm.sh): scripts/test.sh starts it once
 * before the lanes, runs them with the provisioner's own (src/provisioner/*.integration.test.ts) in
 * one step of shared lane 1, and takes the cluster down after the lanes.
 */
export const SWARM = ["swarm-run"] as const;

/**
 * Seconds each file took in its shared lane, beside the other lanes, from a fresh clone on
 * 2026-11-26 (the split's weights, in the same time as LANE_HEAD_START; a file not listed weighs
 * DEFAULT_SECONDS until it is).
 */
export const SECONDS: Record<string, number> = {
  balancers: 189,
  components: 151,
  baselines: 119,
  "backend-header": 100,
  "user-image": 99,
  thresholds: 76,
  workload: 67,
  cancel: 58,
  experiments: 55,
  hotkey: 55,
  delete: 47,
  pipeline: 42,
  interference: 37,
  "backend-errors": 36,
  histograms: 22,
  "user-image-unready": 14,
  "faults-kill": 13,
  "experiments-retry": 4,
  "single-instance": 1,
};
export const DEFAULT_SECONDS = 30;

/**
 * Seconds each shared lane spends besides its files (scripts/test.sh's shared_lane), measured from
 * a fresh clone on 2026-11-26: lane 1 then runs the Swarm files (150 s on the running cluster),
 * lane 2 the Compose check (34–46 s, its images built before the lanes) and the CLI's integration
 * files against a web and worker of their own (about 230 s). The split starts each lane with them.
 */
export const LANE_HEAD_START: readonly number[] = [150, 275];

const SUFFIX = ".integration.test.ts";
export const fileName = (path: string) => basename(path, SUFFIX);

/**
 * The quiet files, and the others in `shared` lanes of about equal seconds (longest first, each
 * to the lane with the fewest seconds so far). Every file is in exactly one list; a quiet name
 * with no file is an error, so a renamed file cannot leave the quiet lane unnoticed.
 */
export function splitLanes(
  files: readonly string[],
  shared: number,
  headStart: readonly number[] = LANE_HEAD_START,
): { quiet: string[]; swarm: string[]; shared: string[][] } {
  if (!Number.isInteger(shared) || shared < 1) throw new Error(`shared lanes must be a whole number ≥ 1, got ${shared}`);
  const names = new Set(files.map(fileName));
  const missing = QUIET.filter((q) => !names.has(q));
  if (missing.length > 0)
    throw new Error(`quiet integration file(s) not found: ${missing.join(", ")} (update QUIET in src/testing/lanes.ts)`);
  const quietNames: ReadonlySet<string> = new Set(QUIET);
  const quiet = files.filter((f) => quietNames.has(fileName(f)));
  const swarmNames: ReadonlySet<string> = new Set(SWARM);
  const swarm = files.filter((f) => swarmNames.has(fileName(f)));
  const weight = (f: string) => SECONDS[fileName(f)] ?? DEFAULT_SECONDS;
  const others = files
    .filter((f) => !quietNames.has(fileName(f)) && !swarmNames.has(fileName(f)))
    .sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
  const lanes = Array.from({ length: shared }, (_, i) => ({ files: [] as string[], seconds: headStart[i] ?? 0 }));
  for (const f of others) {
    const lane = lanes.reduce((min, l) => (l.seconds < min.seconds ? l : min));
    lane.files.push(f);
    lane.seconds += weight(f);
  }
  return { quiet, swarm, shared: lanes.map((l) => l.files) };
}

/** `tsx src/testing/lanes.ts quiet`, `… swarm` or `… shared K/N`: the lane's files, one per line, relative to apps/worker. */
function main(argv: string[]) {
  const usage = "usage: lanes.ts quiet | swarm | shared K/N   (the integration files of one lane, one per line)";
  const src = join(dirname(fileURLToPath(import.meta.url)), "..");
  const files = readdirSync(src)
    .filter((f) => f.endsWith(SUFFIX))
    .sort()
    .map((f) => `src/${f}`);
  const [which, part] = argv;
  if (which === "quiet") {
    console.log(splitLanes(files, 1).quiet.join("\n"));
    return;
  }
  if (which === "swarm") {
    const provisioner = readdirSync(join(src, "provisioner"))
      .filter((f) => f.endsWith(SUFFIX))
      .sort()
      .map((f) => `src/provisioner/${f}`);
    console.log([...provisioner, ...splitLanes(files, 1).swarm].join("\n"));
    return;
  }
  const m = which === "shared" ? /^(\d+)\/(\d+)$/.exec(part ?? "") : null;
  if (!m) throw new Error(usage);
  const [k, n] = [Number(m[1]), Number(m[2])];
  if (k < 1 || k > n) throw new Error(`${usage}: K must be between 1 and N, got ${part}`);
  const lane = splitLanes(files, n).shared[k - 1]!;
  if (lane.length === 0) throw new Error(`shared lane ${part} has no file`);
  console.log(lane.join("\n"));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
}
