import { TRunDefinition as TRunCreate } from "../contract/definition";
import { TFault } from "../contract/faults";
import { ComponentForm } from "./form";
import { TTestbedStats } from "./service/testbed-stats";
import { HaproxyStats } from "./haproxy/stats";
import { ScriptStatement } from "./storage/statements";

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
  "rabbitmq",
] as const;
export type LabImage = (typeof LAB_IMAGES)[number];

/**
 * How an untrusted container (a user's image) runs, beside not privileged, no added capability,
 * `no-new-privileges`, no binds, mounts or devices, and the run's internal network only:
 * - `dropCapabilities`: of Docker's default set, those a web service has no use for: raw sockets
 *   (ping, packet crafting: NET_RAW), device nodes (MKNOD), chroot (SYS_CHROOT), the kernel's audit
 *   log (AUDIT_WRITE), file capabilities (SETFCAP) and capability changes (SETPCAP). What common
 *   images need to start stays: CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, SETUID/SETGID (an
 *   entrypoint that drops to its user with gosu or su-exec) and NET_BIND_SERVICE (a port below 1024).
 * - `pids`: processes and threads together. 512 holds a pre-forking server (gunicorn, Puma, PHP-FPM)
 *   with its threads on a few cores and a JVM's (GC, JIT and pool threads), and stops a fork bomb
 *   long before it starves the lab's own containers on the shared engine.
 */
export const UNTRUSTED = {
  dropCapabilities: ["NET_RAW", "MKNOD", "SYS_CHROOT", "AUDIT_WRITE", "SETFCAP", "SETPCAP"],
  pids: 512,
} as const;

/** A file written into a container before it starts; `title` names it in previews (its file name when absent). */
export type PlannedFile = { path: string; content: string; title?: string };

/**
 * How the pipeline knows a container is ready, after the testcontainers wait strategies. A
 * container lists one or more; they are checked in order, each until it passes or the deadline.
 * Every probe is a real request, query or output line, never a fixed sleep.
 */
export type Probe =
  /** A 2xx answer from the container's own address. */
  | { kind: "http"; port: number; path: string }
  /**
   * Through a balancer: every one of `backends` answered at least once: its name in X-Backend, or
   * with `header` the balancer's UPSTREAM_HEADER, whose address the worker maps to the replica.
   */
  | { kind: "backends"; port: number; path: string; backends: string[]; header?: "X-Scalelab-Upstream" }
  /** A line of the container's output matches `pattern` (a regular expression source). */
  | { kind: "log"; pattern: string }
  | { kind: "tcp"; port: number }
  /**
   * A database session: runs `setup` once (idempotent statements), inserts `seed.rows` rows with
   * `seed.statement` (parameters from `productRow`), then `check` must return a row. Then, once,
   * the user's `init` script (storage.init) statement by statement in the keyspace or database
   * `database`: it need not be idempotent, so it is never retried, and its error fails the run.
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
      init?: ScriptStatement[];
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
  /** Its host name is read by others (X-Backend, Cassandra's seed): a network-fault proxy in front of it leaves the name to it. */
  keepsHostname?: true;
  /**
   * Ports it takes the run's incoming connections on (the service's, the store's, the broker's);
   * a network fault puts its proxy on these. Absent: no proxy can stand in front of it (a consumer
   * takes no connections; Cassandra's clients find the node by its address).
   */
  ports?: number[];
  /** Start order: a tier starts once every container of the earlier tiers is ready. */
  tier: number;
  ready: Probe[];
  /**
   * A user's image (untrusted): it runs unprivileged with every capability Docker would add dropped
   * but those a server needs, no host mounts, and a limit on its processes (UNTRUSTED).
   */
  untrusted?: true;
  /** A figures endpoint polled every second during the load: the testbed's JSON or HAProxy's CSV. */
  stats?: { port: number; path: string; format?: "testbed" | "haproxy" };
  /** The engine node it runs on (a Swarm node's host name), set by the worker from the run's placement; absent: the engine chooses. */
  node?: string;
  /**
   * Ports the worker dials that are not its own (`dialedPorts`): a network holder's are those of the
   * container that joins it. On a cluster each dialed port is published on the container's node.
   */
  publish?: number[];
};

export type FigureDef = {
  key: string;
  label: string;
  unit: "" | "/s";
  /** gauge: a level in that second; rate: a count during that second. */
  kind: "gauge" | "rate";
  /** Charts group figures by this. */
  chart: "pool" | "broker" | "downstream" | "balancer";
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

/** The topology slots a component can fill, and the load generators beside them. */
export type Slot = "service" | "balancer" | "downstream" | "broker" | "storage" | "cache" | "loadgen" | "faults";

export type PlanContext = {
  run: TRunCreate;
  images: Partial<Record<LabImage, string>>;
  /** Builds a container with the run's name, labels and defaults filled in. */
  container: (spec: ContainerSpec) => PlannedContainer;
  /**
   * What a client needs to reach the run's other components (their `clientEnv`), merged; only those
   * of the given slots when any are given (a consumer needs only the broker's).
   */
  clientEnv: (...slots: Slot[]) => Record<string, string>;
  /** What a user's service gets to reach the run's components (their `serviceEnv`), merged. */
  serviceEnv: () => Record<string, string>;
};

export type ContainerSpec = Omit<PlannedContainer, "name" | "labels" | "nanoCpus" | "image" | "aliases" | "files" | "env"> & {
  index: number;
  /** A lab image, or a user's image by its reference (`{ user: "myapp:1.2" }`, validated by the contract). */
  image: LabImage | { user: string };
  aliases?: string[];
  files?: PlannedFile[];
  env?: Record<string, string>;
  memoryMb?: number;
};

/**
 * A role the component plans for a run, known without planning it: what fault validation, host
 * validation and the setup need (how many containers, whether they take connections, their limits).
 */
export type RoleDecl = {
  role: string;
  count: number;
  /** It takes the run's incoming connections (a network fault's proxy can stand in front of it). */
  incoming: boolean;
  /** The slot object its limits come from, for messages (`topology.storage`). */
  path: string;
  cpus?: number;
  /** Per container. */
  memoryMb?: number;
};

/** How the product shows a role: in titles, the compare page, the diagram. */
export type RolePresentation = {
  /** "replica" / "replicas": fault targets and the timeline. */
  one: string;
  many: string;
  /** "Replica", "Broker": the compare page's resource rows (absent: no rows). */
  name?: string;
  /** The diagram: the column along the request path (0 = the load generator), the order in it, the colour. */
  column: number;
  row?: number;
  color: string;
  /** A box is labelled with the container's host name (a replica) or its title (the broker). */
  label: "hostname" | "title";
};

/** An issue of a rule across components: the path in the run definition and what is wrong there. */
export type RunIssue = { path: (string | number)[]; message: string };

/** A row of the compare page's setup table: the same value for two runs means the same setup. */
export type SetupField = { key: string; label: string; show: (run: SetupRun) => string };
/** A stored run's definition as the setup table reads it (runs stored before a field existed lack it). */
export type SetupRun = Pick<TRunCreate, "topology" | "workload"> & {
  faults?: readonly Pick<TFault, "at" | "action" | "target" | "ms" | "jitterMs" | "percent" | "kbps">[];
  /** A script's run, once its summary says whose scenarios ran (workload.script). */
  script?: { ownScenarios: boolean };
};

/**
 * One kind of part of a topology. Adding a component is one folder (this module, its config schema
 * in `config.ts`, its generated files and tests) plus its image context, listed in ./registry.ts
 * (and its slot's kinds list when the slot has several kinds). Everything else folds over the
 * registry (docs/ARCHITECTURE.md).
 */
export type ComponentModule = {
  kind: string;
  slot: Slot;
  /** Images this component needs for the run; empty when the run does not use it. */
  images: (run: TRunCreate) => LabImage[];
  /** The containers it adds; empty when the run does not use it. */
  plan: (ctx: PlanContext) => PlannedContainer[];
  /** The roles it plans for the run, without planning (empty when the run does not use it). */
  roles: (run: TRunCreate) => RoleDecl[];
  /** How its roles are shown. */
  presentation?: Record<string, RolePresentation>;
  /** The links it adds to the diagram, drawn where both roles are in the run. */
  edges?: readonly { from: string; to: string; kind: "http" | "sync" | "async" | "query" }[];
  /** What its clients need to reach it (addresses, names, credentials), empty when unused. */
  clientEnv?: (run: TRunCreate) => Record<string, string>;
  /**
   * What a user's service (service.kind image) gets to reach it: the conventional names its client
   * libraries read (DATABASE_URL, KAFKA_BROKERS, REDIS_URL…), empty when the run does not use it.
   * The docs list them (docs/ARCHITECTURE.md, "What your service gets").
   */
  serviceEnv?: (run: Pick<TRunCreate, "topology">) => Record<string, string>;
  /** Its rules across components, checked with the run definition (ZRunCreate). */
  rules?: (run: TRunCreate) => RunIssue[];
  /** What it adds to the run form. */
  form?: ComponentForm;
  /** Its rows of the compare page's setup table. */
  setup?: readonly SetupField[];
  /** Per-second figures from the testbed stats of the run's containers. */
  figures?: (input: FigureInput, run: TRunCreate) => Record<string, number>;
  /** The figures it can report: keys, labels, units, chart groups. */
  figureDefs?: readonly FigureDef[];
};
