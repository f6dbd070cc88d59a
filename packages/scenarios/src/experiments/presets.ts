import { TMetricKey } from "../analysis/experiment-report";
import { TExperimentCreateInput } from "./experiments";

/**
 * One preset per experiment of ../shared/EXPERIMENTS.md: the write-up's setup scaled to a small
 * machine (2 cores here: CPU limits and connections sized so that the effect, not the host, decides),
 * with the write-up's own figures as the reference and the shape a user should expect.
 */

export type TPresetReference = {
  /** The preset's variant this figure belongs beside. */
  variant: string;
  metric: TMetricKey;
  /** The write-up's figure (its hardware, its tool). */
  value: number;
  note?: string;
};

export type TPreset = {
  name: string;
  title: string;
  /** One line: what running it shows. */
  shows: string;
  /** The shape expected: which side wins, roughly by how much, and why. */
  expected: string;
  /** How the setup was scaled to this machine, where it differs from the write-up. */
  scaled: string;
  source: string;
  reference: TPresetReference[];
  experiment: TExperimentCreateInput;
  /**
   * A preset applied to the user's own service: its base lacks what only the user can give (the
   * image and its request or script). `needs` names those fields for the messages and the UI;
   * `example` is a patch that completes the base, for the list's run count and estimate only.
   */
  template?: { needs: string; example: Record<string, unknown> };
  /**
   * A preset for a Swarm engine (issue 18): the engine its base names, the active nodes it needs
   * at least, and how to get them; running it on an engine with fewer nodes is refused, saying so.
   */
  engine?: { name: string; nodes: number; setup: string };
};

/** The test cluster's engine name (scripts/swarm.sh). */
export const SWARM_LOCAL = "swarm-local";

/** The "How does my service scale?" preset: a replica sweep of the user's image. */
export const SCALE_MY_SERVICE = "scale-my-service";

export const PRESETS: readonly TPreset[] = [
  {
    name: "replicas-one-host",
    title: "1. Replicas on one host",
    shows: "Four replicas of a multithreaded service on one host do not beat one: they only share the same cores.",
    expected:
      "4 replicas give no more req/s than 1, usually fewer (the write-up: 0.70×); the host's CPU is saturated in both, and the findings say so.",
    scaled:
      "The write-up's 4-thread machine is this host's 2 cores; no CPU limits, nginx round robin, wrk -t1 -c100 in a container, 20 s per run.",
    source: "EXPERIMENTS.md §1",
    reference: [
      { variant: "1 replica", metric: "rps", value: 6300, note: "/api, wrk 100 connections, 4 threads" },
      { variant: "4 replicas", metric: "rps", value: 4400, note: "/api, wrk 100 connections" },
    ],
    experiment: {
      name: "Replicas on one host",
      base: {
        topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 1 } },
        workload: { loadgen: "wrk", connections: 100, threads: 1, endpoint: "hostname", durationSeconds: 20 },
      },
      variants: [
        { name: "1 replica", patch: {} },
        { name: "4 replicas", patch: { topology: { service: { replicas: 4 } } } },
      ],
      repetitions: 3,
    },
  },
  {
    name: "replicas-across-nodes",
    title: "1b. Replicas across nodes",
    shows:
      "Experiment 1 on a Swarm cluster: 4 replicas spread over 4 nodes against 4 on one node, with where each ran, each node's CPU and the load generators' merged percentiles.",
    expected:
      "On a real cluster (a machine per node) the spread replicas have 4 nodes' cores and give up to about 4× the req/s of the packed ones, until the balancer or the load generator is the limit. On the test cluster of one machine (scripts/swarm.sh) the nodes share the same cores, so no gain can show: both variants are within noise of each other, and the findings say the host is saturated either way.",
    scaled:
      "Experiment 1's setup (nginx round robin, no CPU limits, wrk -t1 -c100 on /hostname, 20 s per run) on the engine swarm-local with at least 4 nodes: `bash scripts/swarm.sh up --nodes 4`. For a real cluster, register it (docs/DISTRIBUTED.md) and run the same experiment through POST /experiments with its name as engine and one of its nodes in the pin.",
    source: "EXPERIMENTS.md §1 (its author: in the real world each container would be its own server)",
    reference: [],
    engine: { name: SWARM_LOCAL, nodes: 4, setup: "bash scripts/swarm.sh up --nodes 4" },
    experiment: {
      name: "Replicas across nodes",
      base: {
        engine: SWARM_LOCAL,
        topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 4 } },
        workload: { loadgen: "wrk", connections: 100, threads: 1, endpoint: "hostname", durationSeconds: 20 },
      },
      variants: [
        { name: "4 on one node", patch: { topology: { placement: { pin: { app: "node1" } } } } },
        { name: "4 on 4 nodes", patch: { topology: { placement: { strategy: "spread" } } } },
      ],
      repetitions: 3,
    },
  },
  {
    name: "blocking-logging",
    title: "2. Blocking I/O starves the worker pool",
    shows: "A log write that blocks a pool worker (flush per request) caps throughput at pool / flush time while the CPU idles.",
    expected:
      "Async logging serves several times the req/s of blocking logging at a fraction of the latency (the write-up: 6× the scenarios, 10 s → 1–2 s); the blocking variant's pool is full with CPU to spare.",
    scaled:
      "A pool of 16 workers, a 20 ms flush per request, 0.5 CPU, 200 VUs for 20 s (the write-up: 1000 users on 10 instances for 10 minutes).",
    source: "EXPERIMENTS.md §2",
    reference: [
      { variant: "blocking", metric: "latencyMs.avg", value: 10000, note: "1000 users, autoflush on" },
      { variant: "async", metric: "latencyMs.avg", value: 1500, note: "autoflush off: 1–2 s" },
    ],
    experiment: {
      name: "Blocking vs async logging",
      base: {
        topology: { service: { replicas: 1, cpus: 0.5, workerPool: 16, queueLimit: 0, logging: "blocking", logFlushMs: 20 } },
        workload: { endpoint: "hostname", vus: 200, durationSeconds: 20 },
      },
      variants: [
        { name: "blocking", patch: {} },
        { name: "async", patch: { topology: { service: { logging: "async" } } } },
      ],
      repetitions: 3,
    },
  },
  {
    name: "cpu-limit-replicas",
    title: "3. Stateless scaling under CPU limits",
    shows: "With a CPU limit per container, each replica brings its own quota: three replicas at 0.2 CPU serve about three times one.",
    expected:
      "3 replicas ≈ 2.5–3× the req/s of 1 and lower latency (the write-up: 169 → 450 req/s at 1 connection, 22.6 → 9.1 ms); 1 replica is throttled at its limit.",
    scaled:
      "As the write-up: 0.2 CPU per replica, 1000 JSON encodings per request, nginx round robin, wrk in a container with 1 and 3 connections; 10 s per run (theirs 5 s).",
    source: "EXPERIMENTS.md §3",
    reference: [
      { variant: "1 replica · connections=1", metric: "rps", value: 169 },
      { variant: "1 replica · connections=3", metric: "rps", value: 74 },
      { variant: "3 replicas · connections=1", metric: "rps", value: 450 },
      { variant: "3 replicas · connections=3", metric: "rps", value: 325 },
      { variant: "1 replica · connections=1", metric: "latencyMs.avg", value: 22.6 },
      { variant: "3 replicas · connections=1", metric: "latencyMs.avg", value: 9.1 },
    ],
    experiment: {
      name: "Replicas under CPU limits",
      base: {
        topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 1, cpus: 0.2, cpuIterations: 1000 } },
        workload: { loadgen: "wrk", connections: 1, endpoint: "cpu", durationSeconds: 10 },
      },
      variants: [
        { name: "1 replica", patch: {} },
        { name: "3 replicas", patch: { topology: { service: { replicas: 3 } } } },
      ],
      sweep: [{ field: "workload.connections", values: [1, 3] }],
      repetitions: 3,
    },
  },
  {
    name: "sync-vs-async",
    title: "4. Sync call vs async queue",
    shows:
      "Handing the downstream work to Kafka frees the request from waiting for it; the work is done later, and the consumer lag shows how much later.",
    expected:
      "Async gives about 2× the req/s and lower latency than sync (the write-up: 56 → 120 req/s at 1 connection, 28 → 21 ms), with a consumer lag that grows during the load and drains after it.",
    scaled: "As the write-up: service and downstream at 0.2 CPU, 1000 encodings each, Kafka (KRaft) with 1 CPU; 1 and 3 VUs, 15 s per run.",
    source: "EXPERIMENTS.md §4",
    reference: [
      { variant: "sync · vus=1", metric: "rps", value: 56 },
      { variant: "sync · vus=3", metric: "rps", value: 28 },
      { variant: "async · vus=1", metric: "rps", value: 120 },
      { variant: "async · vus=3", metric: "rps", value: 87 },
      { variant: "sync · vus=1", metric: "latencyMs.avg", value: 28 },
      { variant: "sync · vus=3", metric: "latencyMs.avg", value: 105 },
      { variant: "async · vus=1", metric: "latencyMs.avg", value: 21 },
      { variant: "async · vus=3", metric: "latencyMs.avg", value: 40 },
    ],
    experiment: {
      name: "Sync call vs async queue",
      base: {
        topology: { service: { replicas: 1, cpus: 0.2 }, downstream: { mode: "sync", replicas: 1, cpus: 0.2, cpuIterations: 1000 } },
        workload: { endpoint: "cpu", vus: 1, durationSeconds: 15 },
      },
      variants: [
        { name: "sync", patch: {} },
        { name: "async", patch: { topology: { downstream: { mode: "async" }, broker: { kind: "kafka", cpus: 1, memoryMb: 512 } } } },
      ],
      sweep: [{ field: "workload.vus", values: [1, 3] }],
      repetitions: 3,
    },
  },
  {
    name: "sql-vs-nosql",
    title: "5. SQL vs NoSQL writes",
    shows: "Postgres wins on a single connection; Cassandra's writes scale with concurrency.",
    expected: "At 1 VU Postgres ahead of Cassandra; at 12 VUs Cassandra ahead (the write-up: 521 vs 355 at 1, 323 vs 1213 at 12).",
    scaled: "Each store at 1 CPU and 2 GB as in the write-up, the service at 1 CPU with a pool of 12; 1 and 12 VUs, 20 s per run.",
    source: "EXPERIMENTS.md §5",
    reference: [
      { variant: "postgres · vus=1", metric: "rps", value: 521 },
      { variant: "postgres · vus=12", metric: "rps", value: 323 },
      { variant: "cassandra · vus=1", metric: "rps", value: 355 },
      { variant: "cassandra · vus=12", metric: "rps", value: 1213 },
    ],
    experiment: {
      name: "SQL vs NoSQL writes",
      base: {
        topology: { service: { replicas: 1, cpus: 1 }, storage: { kind: "postgres", cpus: 1, memoryMb: 2048, poolSize: 12 } },
        workload: { endpoint: "activity", vus: 1, durationSeconds: 20 },
      },
      variants: [
        { name: "postgres", patch: {} },
        { name: "cassandra", patch: { topology: { storage: { kind: "cassandra" } } } },
      ],
      sweep: [{ field: "workload.vus", values: [1, 12] }],
      repetitions: 3,
    },
  },
  {
    name: "failover",
    title: "6. Passive health checks and failover",
    shows:
      "Stopping and starting backends under load: nginx's passive health checks move the load away and bring it back; only requests in flight fail.",
    expected:
      "The per-backend chart shows the two stopped replicas at 0 and their return within about fail_timeout; a handful of failed requests at each stop with retries off, none with retries on.",
    scaled:
      "As the write-up: nginx round robin over 4 replicas over gRPC, max_fails 1, fail_timeout 10 s, 8 req/s for 180 s; stop replica 3 at 30 s and 4 at 60 s, start them at 90 s and 120 s.",
    source: "EXPERIMENTS.md §6",
    reference: [],
    experiment: {
      name: "Failover",
      base: {
        topology: {
          balancer: { kind: "nginx", algorithm: "round_robin", maxFails: 1, failTimeoutSeconds: 10, retryNextUpstream: false },
          service: { replicas: 4 },
        },
        workload: { arrivalRate: 8, durationSeconds: 180, protocol: "grpc" },
        faults: [
          { at: 30, action: "stop", target: { role: "app", index: 2 } },
          { at: 60, action: "stop", target: { role: "app", index: 3 } },
          { at: 90, action: "start", target: { role: "app", index: 2 } },
          { at: 120, action: "start", target: { role: "app", index: 3 } },
        ],
      },
      variants: [
        { name: "retry off", patch: {} },
        { name: "retry on", patch: { topology: { balancer: { retryNextUpstream: true } } } },
      ],
      repetitions: 2,
    },
  },
  {
    name: "hot-key",
    title: "7. What serves a hot key fastest",
    shows:
      "Every layer of interpreted code on the hot path costs throughput: static nginx, nginx + Lua + Redis, Rack, trivial Rack, Rails.",
    expected:
      "static > Lua ≈ memcached > trivial Rack > Rack > Rails, Rails by orders of magnitude (the write-up: 50–80k, 22–43k, 11–15k, 6.5k, 80–240 req/s).",
    scaled:
      "One server at 1 CPU hit directly (no balancer), wrk -t1 -c200 for 20 s; the write-up's connection × thread grids are one point here (vary workload.connections to grid it).",
    source: "EXPERIMENTS.md §7",
    reference: [
      { variant: "nginx_static", metric: "rps", value: 65000, note: "50–80k" },
      { variant: "nginx_lua", metric: "rps", value: 32500, note: "22–43k" },
      { variant: "rack", metric: "rps", value: 13000, note: "Rack + Redis, 11–15k" },
      { variant: "rack_trivial", metric: "rps", value: 6500 },
      { variant: "rails", metric: "rps", value: 160, note: "80–240, heavy timeouts" },
    ],
    experiment: {
      name: "Hot key",
      base: {
        topology: { balancer: { kind: "none" }, service: { kind: "nginx_static", replicas: 1, cpus: 1 } },
        workload: { loadgen: "wrk", connections: 200, threads: 1, endpoint: "key", durationSeconds: 20 },
      },
      variants: (["nginx_static", "nginx_lua", "memcached", "rack_trivial", "rack", "rails"] as const).map((kind) => ({
        name: kind,
        patch: { topology: { service: { kind } } },
      })),
      repetitions: 3,
    },
  },
  {
    name: SCALE_MY_SERVICE,
    title: "How does my service scale?",
    shows:
      "Your own image behind nginx at 1, 2 and 4 replicas with a CPU limit each: whether replicas add throughput, where it levels off, and why (the write-ups' method on your service).",
    expected:
      "A service that scales near-linearly gives about 2× and 4× the req/s of one replica; a shared bottleneck (a store, a lock, the host's cores) shows as a curve that levels off (USL contention σ) or turns down (coherency κ), and the findings name it.",
    scaled:
      "0.25 CPU per replica, so 4 replicas take 1 of this host's 2 cores and the load generator and balancer keep the rest; 32 k6 VUs for 20 s per run. Give your image and its request or k6 script; change the CPU, VUs or the replica counts (values) as you like.",
    source: "your service",
    reference: [],
    template: {
      needs: "topology.service.image and workload.request, workload.requests or workload.script",
      example: { topology: { service: { image: "myapp:1" } }, workload: { request: { path: "/" } } },
    },
    experiment: {
      name: "How does my service scale?",
      base: {
        topology: {
          balancer: { kind: "nginx", algorithm: "round_robin" },
          service: { kind: "image", replicas: 1, cpus: 0.25, memoryMb: 256 },
        },
        workload: { loadgen: "k6", vus: 32, durationSeconds: 20 },
      },
      sweep: [{ field: "topology.service.replicas", values: [1, 2, 4] }],
      repetitions: 3,
    },
  },
];

export const presetByName = (name: string): TPreset | undefined => PRESETS.find((p) => p.name === name);
