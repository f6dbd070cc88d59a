import type { TRunCreate } from "../contract/run";
import type { TTestbedStats } from "./figures";
import type { HaproxyStats } from "./haproxy/stats";

/** The images a plan can use; each is built from packages/images/contexts/<name>. */
export const LAB_IMAGES = [
  "testbed",
  "nginx",
  "haproxy",
  "k6",
  "wrk",
  "kafka",
  "cassandra",
  "postgres",
  "redis",
  "memcached",
  "hotkey-nginx",
  "ruby",
  "toxiproxy",
] as const;
export type LabImage = (typeof LAB_IMAGES)[number];

export type PlannedFile = { path: string; content: string };

/**
 * How the pipeline knows a container is ready, after the testcontainers wait strategies. A
 * container lists one or more; they are checked in order, each until it passes or the deadline.
 * Every probe is a real request, query or output line, never a fixed sleep.
 */
export type Probe =
  /** A 2xx answer from the container's own address. */
  | { kind: "http"; port: number; path: string }
  /** Through a balancer: every one of `backends` answered at least once (its name in X-Backend). */
  | { kind: "backends"; port: number; path: string; backends: string[] }
  /** A line of the container's output matches `pattern` (a regular expression source). */
  | { kind: "log"; pattern: string }
  | { kind: "tcp"; port: number }
  /**
   * A database session: runs `setup` once (idempotent statements), inserts `seed.rows` rows with
   * `seed.statement` (parameters from `productRow`), then `check` must return a row.
   */
  | {
      kind: "query";
      engine: "postgres" | "cassandra";
      port: number;
      user?: string;
      password?: string;
      database?: string;
      setup: string[];
      seed?: { statement: string; rows: number };
      check: string;
    };

export type PlannedContainer = {
  name: string;
  /** What it is in the run (`app`, `lb`, `loadgen`, `logs`, `consumer`, `kafka`, `db`); a Docker label. */
  role: string;
  /** The component kind that planned it. */
  component: string;
  /** How the timeline and errors call it, e.g. "replica app-0", "the Kafka broker". */
  title: string;
  image: string;
  hostname: string;
  /** DNS names on the run network. */
  aliases: string[];
  env: Record<string, string>;
  cmd?: string[];
  /** Replaces the image's entrypoint (a network holder's `sleep infinity`). */
  entrypoint?: string[];
  /**
   * The container whose network it joins (its network holder, ./netns.ts): it then has no address,
   * aliases or host name of its own on the run network; the holder's are its.
   */
  networkOf?: string;
  /** CPU limit in CPUs (for reports) and billionths of a CPU (for Docker); absent = no limit. */
  cpus?: number;
  nanoCpus?: number;
  memoryBytes?: number;
  labels: Record<string, string>;
  /** Written into the container before it starts. */
  files: PlannedFile[];
  /**
   * Ports it takes the run's incoming connections on (the service's, the store's, the broker's);
   * a network fault puts its proxy on these. Absent: no proxy can stand in front of it (a consumer
   * takes no connections; Cassandra's clients find the node by its address).
   */
  ports?: number[];
  /** Start order: a tier starts once every container of the earlier tiers is ready. */
  tier: number;
  ready: Probe[];
  /** A figures endpoint polled every second during the load: the testbed's JSON or HAProxy's CSV. */
  stats?: { port: number; path: string; format?: "testbed" | "haproxy" };
};

/** A whole-run figure group that a component adds to the summary (e.g. `broker`, `pool`). */
export type FigureSeries = { t: number; figures: Record<string, number> }[];

export type StatsReading = { container: string; role: string; stats: TTestbedStats };

/**
 * Readings of every polled container in one second, with the previous second's for deltas, and
 * the balancer's own statistics when it has them (HAProxy).
 */
export type FigureInput = {
  current: StatsReading[];
  previous: StatsReading[] | undefined;
  baseline: StatsReading[];
  haproxy?: { current: HaproxyStats; previous: HaproxyStats | undefined };
};

export type PlanContext = {
  run: TRunCreate;
  images: Partial<Record<LabImage, string>>;
  /** Builds a container with the run's name, labels and defaults filled in. */
  container: (spec: ContainerSpec) => PlannedContainer;
};

export type ContainerSpec = Omit<PlannedContainer, "name" | "labels" | "nanoCpus" | "image" | "aliases" | "files" | "env"> & {
  index: number;
  image: LabImage;
  aliases?: string[];
  files?: PlannedFile[];
  env?: Record<string, string>;
  memoryMb?: number;
};

/**
 * One kind of part of a topology. Adding a component is one module like this plus its image
 * context (docs/ARCHITECTURE.md). Its config schema lives beside it and is composed into
 * ZTopology in ../schemas.ts.
 */
export type ComponentModule = {
  kind: string;
  /** Images this component needs for the run; empty when the run does not use it. */
  images: (run: TRunCreate) => LabImage[];
  /** The containers it adds; empty when the run does not use it. */
  plan: (ctx: PlanContext) => PlannedContainer[];
  /** Per-second figures from the testbed stats of the run's containers. */
  figures?: (input: FigureInput, run: TRunCreate) => Record<string, number>;
};
