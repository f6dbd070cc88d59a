import { TRunSummary, ZRunSummary } from "../contract/results";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { experimentStatistics } from "./experiment-report";
import { experimentFindings, runFindings } from "./findings";
import { HOST_NOISE as FINDING_HOST_NOISE } from "./host-noise";

/*
 * Every fixture is a real run's summary, recorded from the lab's Postgres after running the
 * write-ups' presets on the 2-core development machine (fixtures/findings/, each naming its run).
 */
/** `openModel`: the run's load came at a fixed arrival rate (recorded from its workload). */
type Fixture = { source: Record<string, unknown>; hostCpus: number; openModel?: boolean; summary: TRunSummary };
const DIR = new URL("./fixtures/findings/", import.meta.url);
const fixtures = new Map<string, Fixture>(
  readdirSync(DIR).map((f) => {
    const raw = JSON.parse(readFileSync(new URL(f, DIR), "utf8")) as Fixture;
    return [f.replace(/\.json$/, ""), { ...raw, summary: ZRunSummary.parse(raw.summary) }];
  }),
);
const fixture = (name: string): Fixture => {
  const f = fixtures.get(name);
  if (!f) throw new Error(`no fixture ${name}; have ${[...fixtures.keys()].join(", ")}`);
  return f;
};
const findingsOf = (name: string) => {
  const f = fixture(name);
  return runFindings({ summary: f.summary, hostCpus: f.hostCpus, openModel: f.openModel ?? false });
};
const codes = (name: string) => findingsOf(name).map((f) => f.code);
const finding = (name: string, code: string) => findingsOf(name).find((f) => f.code === code);

describe("run findings on recorded runs", () => {
  it("experiment 1: four unlimited replicas saturate the host's two cores (187 % of 200 %); one replica does not", () => {
    expect(codes("exp1--4-replicas")).toEqual(["host_cpu_saturated"]);
    const f = finding("exp1--4-replicas", "host_cpu_saturated")!;
    expect(f.message).toMatch(
      /^The host's 2 cores were saturated: the containers together used 187 % of 200 %\. The 4 replicas only shared the same cores/,
    );
    expect(f.evidence).toMatchObject({ hostCpus: 2, cpuPctByRole: { app: 109.2, lb: 54.8, loadgen: 23.2 } });
    // One replica left cores idle: what bound it is not a container's CPU.
    expect(codes("exp1--1-replica")).toEqual(["bound_elsewhere"]);
    expect(finding("exp1--1-replica", "bound_elsewhere")!.message).toMatch(
      /^No container was at its CPU limit and the host's cores were not saturated \(the containers together used 128 % of 200 %\)/,
    );
  });

  it("experiment 1 across the test cluster's nodes: the nodes share one machine, said first; on separate machines nothing of it", () => {
    const f = fixture("exp1--4-replicas");
    const nodes = ["node1", "node2", "node3", "node4"].map((node) => ({ node, cpus: 2, containers: 2, cpuPct: 46 }));
    const shared = runFindings({ summary: { ...f.summary, nodes }, hostCpus: 2, sharedMachine: true });
    expect(shared.map((x) => x.code)).toEqual(["nodes_share_machine", "host_cpu_saturated"]);
    expect(shared[0]!.message).toMatch(
      /^The engine's 4 nodes \(node1, node2, node3, node4\) are containers on one machine of 2 cores: they share its cores, so spreading containers over them cannot add throughput here/,
    );
    expect(runFindings({ summary: { ...f.summary, nodes }, hostCpus: 8, sharedMachine: false }).map((x) => x.code)).not.toContain(
      "nodes_share_machine",
    );
  });

  it("experiment 3: a replica at 0.2 CPU is throttled at its limit, with room on the host", () => {
    expect(codes("exp3--1-replica-connections-1")).toEqual(["replicas_throttled"]);
    const f = finding("exp3--1-replica-connections-1", "replicas_throttled")!;
    // Recorded before the periods were: 10.11 throttled a second, once shown as "10.1 of 10"; capped at the 10 a second allows.
    expect(fixture("exp3--1-replica-connections-1").summary.containers!.app!.throttledPerSecond).toBe(10.11);
    expect(f.message).toMatch(
      /^The replica ran at its CPU limit \(103 % of it, throttled in 10 of at most 10 CFS periods per second\).*more replicas add capacity/,
    );
    expect(f.evidence).toMatchObject({ pctOfLimit: 103.4, replicas: 1, throttledPerSecond: 10, periodsClamped: true });
    expect(codes("exp3--1-replica-connections-3")).toEqual(["replicas_throttled"]);
    expect(codes("exp3--3-replicas-connections-3")).toEqual(["replicas_throttled"]);
  });

  it("never says more throttled periods than periods, in any recorded run", () => {
    for (const name of fixtures.keys()) {
      for (const f of findingsOf(name)) {
        for (const m of f.message.matchAll(/throttled in ([\d.]+) of (?:at most |the )?([\d.]+)/g)) {
          expect(Number(m[1]), `${name}: ${m[0]}`).toBeLessThanOrEqual(Number(m[2]));
        }
        const perSecond = f.evidence.throttledPerSecond ?? f.evidence.logsThrottledPerSecond;
        if (typeof perSecond === "number") expect(perSecond, name).toBeLessThanOrEqual(10);
      }
    }
  });

  it("with the periods recorded, throttling is a share of the periods that elapsed", () => {
    const s = fixture("exp3--1-replica-connections-1").summary;
    const app = { ...s.containers!.app!, throttledPerSecond: 9.8, throttledShare: 0.98, periodsPerSecond: 10 };
    const f = runFindings({ summary: { ...s, containers: { ...s.containers, app } }, hostCpus: 2 }).find(
      (x) => x.code === "replicas_throttled",
    )!;
    expect(f.message).toMatch(/\(103 % of it, throttled in 98 % of its CFS periods, 9\.8 of the 10 that elapsed per second\)/);
    expect(f.evidence).toMatchObject({ throttledShare: 0.98, throttledPerSecond: 9.8, periodsPerSecond: 10 });
    expect(f.evidence).not.toHaveProperty("periodsClamped");
  });

  it("host noise: a warning after any interference when other work took a noticeable share of the host; none on a quiet one", () => {
    const s = fixture("exp1--1-replica").summary;
    const busy = { cores: 2, seconds: 10, busySeconds: 9, meanPct: 48.7, p95Pct: 51.5, maxPct: 53, meanCores: 0.97, workerMeanPct: 1.2 };
    const noisy = runFindings({ summary: { ...s, hostNoise: busy }, hostCpus: 2 });
    expect(noisy.map((f) => f.code)).toEqual(["host_noise", "bound_elsewhere"]);
    expect(noisy[0]).toMatchObject({
      level: "warn",
      message: expect.stringMatching(
        /^Other work on the host used a mean 48\.7 % of its 2 cores \(0\.97 cores; 9 of 10 s at 40 % or more, up to 53 %\) outside this run's containers/,
      ),
    });
    expect(noisy[1]!.message).toMatch(/Other work on the host used a mean 48\.7 % of it meanwhile \(host noise\)/);
    // Just below the mean, with two busy seconds (one odd second is not noise): quiet.
    const quiet = { ...busy, seconds: 30, meanPct: FINDING_HOST_NOISE.meanPct - 0.1, busySeconds: FINDING_HOST_NOISE.burstSeconds - 1 };
    expect(runFindings({ summary: { ...s, hostNoise: quiet }, hostCpus: 2 }).map((f) => f.code)).toEqual(["bound_elsewhere"]);
    // A burst: quiet on the mean, busy in 3 of 30 s.
    const burst = { ...quiet, busySeconds: FINDING_HOST_NOISE.burstSeconds };
    expect(runFindings({ summary: { ...s, hostNoise: burst }, hostCpus: 2 })[0]!.code).toBe("host_noise");
    // 3 busy seconds of 60 are under a tenth of the load: not a burst.
    expect(runFindings({ summary: { ...s, hostNoise: { ...burst, seconds: 60 } }, hostCpus: 2 })[0]!.code).toBe("bound_elsewhere");
  });

  it("experiment 2: blocking logging starves the pool (full, 184 waiting, 37 % of the CPU limit); async logging does not", () => {
    expect(codes("exp2--blocking")).toEqual(["pool_starvation"]);
    expect(finding("exp2--blocking", "pool_starvation")!.evidence).toMatchObject({
      pool: { size: 16, maxBusy: 16, maxQueued: 184 },
      serviceCpuPct: 37.1,
    });
    expect(codes("exp2--async")).toEqual(["bound_elsewhere"]);
  });

  it("experiment 4: the sync call waits on a downstream at its limit; async answers at once and leaves a growing consumer lag", () => {
    expect(codes("exp4--sync-vus-1")).toEqual(["downstream_bound"]);
    expect(finding("exp4--sync-vus-1", "downstream_bound")!.message).toMatch(
      /^The synchronous downstream \(logs\) ran at its CPU limit \(102 % of it\) while the service used 60 % of its CPU limit/,
    );
    expect(codes("exp4--sync-vus-3")).toEqual(["downstream_bound"]);
    expect(codes("exp4--async-vus-1")).toEqual(["replicas_throttled", "consumer_lag"]);
    expect(finding("exp4--async-vus-1", "consumer_lag")!.evidence).toMatchObject({
      maxLag: 3084,
      lagAtEnd: 3084,
      drainSeconds: null,
      consumerPctOfLimit: 101.6,
    });
    expect(codes("exp4--async-vus-3")).toContain("consumer_lag");
  });

  it("experiment 5: Cassandra at 12 VUs is bound by its 1 CPU (89 % of it); Postgres has CPU to spare", () => {
    expect(codes("exp5--cassandra-vus-12")).toEqual(["store_bound"]);
    expect(finding("exp5--cassandra-vus-12", "store_bound")!.evidence).toMatchObject({ pctOfLimit: 88.8 });
    expect(codes("exp5--cassandra-vus-1")).toEqual(["bound_elsewhere"]);
    expect(codes("exp5--postgres-vus-1")).toEqual(["bound_elsewhere"]);
    expect(codes("exp5--postgres-vus-12")).toEqual(["bound_elsewhere"]);
  });

  it("experiment 7: Rack and Rails at their 1 CPU; nginx, Lua and memcached bound outside any container's CPU", () => {
    expect(codes("exp7--rails")).toEqual(["replicas_throttled"]);
    expect(codes("exp7--rack")).toEqual(["replicas_throttled"]);
    for (const name of ["exp7--nginx-static", "exp7--nginx-lua", "exp7--memcached", "exp7--rack-trivial"])
      expect(codes(name), name).toEqual(["bound_elsewhere"]);
  });

  it("an open-model run (a fixed arrival rate) is not expected to show a bottleneck", () => {
    const f = fixture("exp7--nginx-static");
    expect(runFindings({ summary: f.summary, hostCpus: 2, openModel: true })).toEqual([]);
  });

  it("experiment 6: every failed request came in a fault's window; the spread was uneven because of the faults", () => {
    expect(codes("exp6--grpc-retry-off")).toEqual(["failures_in_fault_windows", "imbalance"]);
    expect(finding("exp6--grpc-retry-off", "failures_in_fault_windows")!.message).toMatch(
      /^All 12 failed requests came in the faults' windows \(3 after stop app-2 @30s, 6 after stop app-3 @60s, 3 after start app-2 @90s\)/,
    );
    expect(finding("exp6--grpc-retry-off", "imbalance")!.level).toBe("info");
  });

  it("the same figures with failures before the first fault say so", () => {
    const s = fixture("exp6--grpc-retry-off").summary;
    const more = { ...s, errors: s.errors + 5 };
    expect(runFindings({ summary: more, hostCpus: 2 }).find((f) => f.code === "failures_outside_fault_windows")?.message).toBe(
      "5 of 17 failed requests came before the first fault: something other than the faults failed.",
    );
  });

  it("the same figures when nothing named the replicas (wrk without a balancer) say the spread is unknown, with no imbalance", () => {
    const s = fixture("exp1--4-replicas").summary;
    const unknown = { ...s, backendSource: "unknown" as const, backends: { unknown: s.requests }, imbalance: undefined };
    const f = runFindings({ summary: unknown, hostCpus: 2 });
    expect(f.map((x) => x.code)).toEqual(["host_cpu_saturated", "backends_unknown"]);
    expect(f[1]!.message).toMatch(/^Which replica answered each request is unknown/);
  });

  it("k6 at 0.1 CPU: the load generator was saturated, a warning naming its CPU", () => {
    expect(codes("loadgen--k6-at-0-1-cpu")).toEqual(["loadgen_saturated"]);
    expect(finding("loadgen--k6-at-0-1-cpu", "loadgen_saturated")).toMatchObject({
      level: "warn",
      message: expect.stringMatching(/^The load generator was saturated \(k6 at a median 97 % of its 0\.1 CPU\)/),
      evidence: { tool: "k6", cpus: 0.1, medianCpuPct: 96.9 },
    });
  });

  it("nginx at 0.1 CPU in front of 4 replicas: balancer-bound while the replicas idle", () => {
    expect(codes("balancer--nginx-at-0-1-cpu")).toEqual(["balancer_bound"]);
    expect(finding("balancer--nginx-at-0-1-cpu", "balancer_bound")!.message).toBe(
      "The balancer was the bottleneck: it used 102 % of its CPU limit while the replicas used 5 % of a core each. Give the balancer more CPU before adding replicas.",
    );
  });

  it("outside interference comes first, says the result is affected, and the findings that assume the topology say it was not intact", () => {
    const f = fixture("exp3--3-replicas-connections-3");
    const stop = {
      container: "sl-1-app-0",
      title: "replica app-0",
      role: "app",
      action: "stop" as const,
      exitCode: 0,
      oomKilled: false,
      signal: 15,
    };
    const summary = {
      ...f.summary,
      durationSeconds: 30,
      imbalance: { method: "max/mean" as const, run: 1.6, medianPerSecond: 1.4 },
      interference: [
        { ...stop, at: 12.2, until: 21.1 },
        // Before the load and back before it started, and after it ended: not part of the measurement.
        { ...stop, at: -8, until: -2 },
        { ...stop, at: 31, until: 33 },
      ],
    };
    const out = runFindings({ summary: ZRunSummary.parse(summary), hostCpus: f.hostCpus });
    expect(out.map((x) => x.code)).toEqual(["interference", "replicas_throttled", "imbalance"]);
    expect(out[0]).toMatchObject({
      level: "warn",
      message:
        "Outside interference: replica app-0 was stopped from outside for 9 s (from 12 s to 21 s): the result is affected, not a clean measurement of the topology as defined.",
      evidence: { interference: [{ at: 12.2, until: 21.1 }] },
    });
    expect(out[1]!.message).toMatch(
      /^The 3 replicas ran at their CPU limit .* Read it with care: it was measured while the topology was not intact/,
    );
    expect(out[2]).toMatchObject({ level: "info", message: expect.stringMatching(/as outside interference took replicas out\.$/) });
    // Without the interference the same figures read as before.
    expect(codes("exp3--3-replicas-connections-3")).toEqual(["replicas_throttled"]);
    expect(finding("exp3--3-replicas-connections-3", "replicas_throttled")!.message).not.toMatch(/not intact/);
  });
});

describe("experiment findings", () => {
  const variant = (name: string, fixtureNames: string[]) => ({
    name,
    runs: fixtureNames.map((f) => ({ summary: fixture(f).summary, hostCpus: 2 })),
  });

  it("a significant difference with its ratio and CI, and the run findings that held in most runs of a variant", () => {
    const blocking = ["exp2--blocking", "exp2--blocking", "exp2--blocking"];
    const async = ["exp2--async", "exp2--async", "exp2--async"];
    // The recorded repetitions' req/s (the fixtures keep one run per variant in full).
    const rps = [
      [650.4, 724.4, 722.75],
      [4442, 4943.05, 4018.7],
    ];
    const stats = experimentStatistics({
      variants: [
        { index: 0, name: "blocking", axes: {} },
        { index: 1, name: "async", axes: {} },
      ],
      baseline: 0,
      sweep: [],
      runs: rps.flatMap((xs, v) =>
        xs.map((x) => ({
          variant: v,
          status: "succeeded" as const,
          summary: { ...fixture(v ? "exp2--async" : "exp2--blocking").summary, rps: x },
        })),
      ),
    });
    const out = experimentFindings(stats, [variant("blocking", blocking), variant("async", async)], 0);
    const diff = out.find((f) => f.code === "significant_difference")!;
    expect(diff.message).toMatch(/^"async" served 6\.\d\d× the req\/s of "blocking" \(95 % CI \d\.\d\d–\d\.\d\d×, p=0\.000\)\.$/);
    const starved = out.find((f) => f.code === "pool_starvation")!;
    expect(starved.message).toMatch(/^"blocking" \(baseline\), 3 of 3 runs: The worker pool was full/);
    expect(starved.evidence).toMatchObject({ variant: "blocking", runs: 3, of: 3 });
    expect(out.find((f) => f.code === "noisy_variant")?.message).toMatch(/^"async" varied by more than 10 %/);
  });

  it("a noisy variant points at host noise when its runs had it (7,319, 14,000 and 21,045 req/s: CV 49 %)", () => {
    const base = fixture("exp1--1-replica").summary;
    const rps = [
      [7319, 14000, 21045],
      [15702.7, 15500, 15900],
    ];
    const stats = experimentStatistics({
      variants: [
        { index: 0, name: "1 replica", axes: {} },
        { index: 1, name: "1 replica again", axes: {} },
      ],
      baseline: 0,
      sweep: [],
      runs: rps.flatMap((xs, v) => xs.map((x) => ({ variant: v, status: "succeeded" as const, summary: { ...base, rps: x } }))),
    });
    const noise = (meanPct: number) => ({
      cores: 2,
      seconds: 10,
      busySeconds: meanPct >= 40 ? 8 : 0,
      meanPct,
      p95Pct: meanPct + 5,
      maxPct: meanPct + 8,
      meanCores: meanPct / 50,
      workerMeanPct: 1,
    });
    const runs = [48.7, 3.1, 35.2].map((m) => ({ summary: { ...base, hostNoise: noise(m) }, hostCpus: 2 }));
    const out = experimentFindings(
      stats,
      [
        { name: "1 replica", runs },
        { name: "1 replica again", runs: [] },
      ],
      0,
    );
    const noisy = out.find((f) => f.code === "noisy_variant")!;
    expect(noisy.message).toMatch(
      /coefficient of variation 49 %\).* 2 of its 3 runs shared the host with other work \(up to a mean 48\.7 % of the host outside the run\): host noise/,
    );
    expect(noisy.evidence).toMatchObject({ hostNoiseRuns: 2, hostNoiseMaxPct: 48.7 });
    // The same spread on a quiet host does not blame it.
    const quiet = experimentFindings(
      stats,
      [
        { name: "1 replica", runs: runs.map((r) => ({ ...r, summary: { ...base, hostNoise: noise(2) } })) },
        { name: "1 replica again", runs: [] },
      ],
      0,
    );
    expect(quiet.find((f) => f.code === "noisy_variant")!.message).not.toMatch(/host noise/);
  });

  it("an A/A pair is `~`: not significant", () => {
    const stats = experimentStatistics({
      variants: [
        { index: 0, name: "A", axes: {} },
        { index: 1, name: "A again", axes: {} },
      ],
      baseline: 0,
      sweep: [],
      runs: [1740.2, 1703.1, 1617.3, 1698.2, 1809.3, 1721.3].map((x, i) => ({
        variant: i < 3 ? 0 : 1,
        status: "succeeded" as const,
        summary: { ...fixture("exp3--3-replicas-connections-1").summary, rps: x },
      })),
    });
    const out = experimentFindings(stats, [variant("A", []), variant("A again", [])], 0);
    expect(out.map((f) => f.code)).toEqual(["not_significant"]);
    expect(out[0]!.message).toMatch(/^"A again" against "A": no significant difference in req\/s, ~ \(p=0\.\d{3}\): /);
  });
});

it("every recorded fixture is used by a test above", () => {
  const source = readFileSync(new URL(import.meta.url), "utf8");
  expect([...fixtures.keys()].filter((k) => !source.includes(`"${k}"`))).toEqual([]);
});
