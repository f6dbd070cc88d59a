import { z } from "zod";
import { strict } from "./fields";

/**
 * Engines (issue 18): where a run's containers run. `local` is the lab's own Docker engine, always
 * there and the default; other engines are Docker Swarm clusters, stored by the lab's host command
 * (`lab engine add`) and never changed through the API (an engine is a Docker endpoint the worker
 * would drive). This is the config the lab tool validates and stores, the worker connects with and
 * the web reads nodes through; and the list view `GET /api/v1/engines` answers.
 */

export const LOCAL_ENGINE = "local";

export const ENGINE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,39}$/;
export const ENGINE_NAME_RULE = `1–40 characters: a lowercase letter, then lowercase letters, digits and "-" (e.g. swarm-local); not "${LOCAL_ENGINE}"`;

/** The name a run gives (`engine`): `local` or a stored engine's name. */
export const ZEngineRef = z
  .string({ error: "engine must be a string" })
  .regex(ENGINE_NAME_PATTERN, { error: `engine must be "${LOCAL_ENGINE}" or an engine's name: ${ENGINE_NAME_RULE}` });

/** A stored engine's own name: never `local`. */
export const ZEngineName = z
  .string({ error: "name must be a string" })
  .regex(ENGINE_NAME_PATTERN, { error: `name must be ${ENGINE_NAME_RULE}` })
  .refine((n) => n !== LOCAL_ENGINE, { error: `name must not be "${LOCAL_ENGINE}": that is the lab's own engine` });

/** A DNS name, an IPv4 address or a bracketed IPv6 address. */
const HOST = String.raw`(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])`;
const HOST_PORT = new RegExp(`^(${HOST}):([0-9]{1,5})$`);
const ENDPOINT = new RegExp(`^tcp://(${HOST}):([0-9]{1,5})$`);
const UNIX_ENDPOINT = /^unix:\/\/(\/[A-Za-z0-9._\-/]{1,200})$/;

const validPort = (p: string) => Number(p) >= 1 && Number(p) <= 65535;

/** A Docker endpoint: `tcp://host:port` (port 1–65535) or `unix:///path/to/docker.sock`. */
export const endpoint = (field: string) =>
  z.string({ error: `${field} must be a string` }).refine(
    (s) => {
      const tcp = ENDPOINT.exec(s);
      if (tcp) return validPort(tcp[2]!);
      return UNIX_ENDPOINT.test(s) && !s.includes("/../") && !s.endsWith("/..");
    },
    { error: `${field} must be a Docker endpoint tcp://HOST:PORT (port 1–65535) or unix:///absolute/path.sock` },
  );

/** `host:port` (port 1–65535), as a registry is addressed in an image reference. */
export const hostPort = (field: string) =>
  z.string({ error: `${field} must be a string` }).refine(
    (s) => {
      const m = HOST_PORT.exec(s);
      return m !== null && validPort(m[2]!);
    },
    { error: `${field} must be HOST:PORT (a host name or IP address, port 1–65535), e.g. 10.0.0.5:5000` },
  );

/** A Swarm node's hostname, as `docker node ls` shows it and a placement constraint names it. */
export const NODE_NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62})$/;
export const NODE_NAME_RULE = `1–63 characters: letters, digits, ".", "_" and "-", starting with a letter or digit`;
export const nodeName = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .regex(NODE_NAME_PATTERN, { error: `${field} must be a node's hostname: ${NODE_NAME_RULE}` });

/** The files a TLS directory must hold, as DOCKER_CERT_PATH. */
export const TLS_FILES = ["ca.pem", "cert.pem", "key.pem"] as const;

export const ENGINE_NODES = { min: 1, max: 64 } as const;

/**
 * What an engine's nodes run on, which decides where a run reads the host's CPU (host noise):
 * - `shared`: on the lab's own machine (containers or VMs here): they share its cores; the worker
 *   reads this machine's counters, and the findings say no placement can add CPU;
 * - `separate`: each on a machine of its own: each node's counters are read on the node (a probe
 *   container per node), less the CPU of the run's containers placed there;
 * - `auto` (the default): `shared` when every node's endpoint is a container of the lab's own
 *   engine (scripts/swarm.sh's test cluster), else `separate`.
 */
export const ENGINE_MACHINE_KINDS = ["auto", "shared", "separate"] as const;

export const ZEngineConfig = strict("", {
  name: ZEngineName,
  kind: z.literal("swarm", { error: 'kind must be "swarm"' }),
  /** A manager's engine: Swarm's service API answers only on managers. */
  manager: endpoint("manager"),
  /** Each node's own engine, for container stats, logs and faults of the tasks it runs. */
  nodes: z
    .array(strict("nodes[]", { name: nodeName("nodes[].name"), endpoint: endpoint("nodes[].endpoint") }), {
      error: "nodes must be a list of {name, endpoint}",
    })
    .min(ENGINE_NODES.min, { error: `nodes must list ${ENGINE_NODES.min}–${ENGINE_NODES.max} nodes (--node NAME=tcp://HOST:PORT)` })
    .max(ENGINE_NODES.max, { error: `nodes must list ${ENGINE_NODES.min}–${ENGINE_NODES.max} nodes` })
    .superRefine((nodes, ctx) => {
      const seen = new Set<string>();
      nodes.forEach((n, i) => {
        if (seen.has(n.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `nodes[].name ${n.name} is listed twice` });
        seen.add(n.name);
      });
    }),
  /** A directory with ca.pem, cert.pem and key.pem (DOCKER_CERT_PATH), or null for a plain TCP endpoint. */
  tlsDir: z
    .string({ error: "tlsDir must be a string" })
    .regex(/^\/[A-Za-z0-9._\-/]{0,1000}$/, { error: 'tlsDir must be an absolute path of letters, digits, ".", "_", "-" and "/"' })
    .nullable(),
  registry: strict("registry", {
    /** Where the lab's host pushes images. */
    push: hostPort("registry.push"),
    /** Where the nodes pull them from. */
    pull: hostPort("registry.pull"),
  }).nullable(),
  /** What the nodes run on (ENGINE_MACHINES): where the run's host CPU and noise are read. */
  machines: z.enum(ENGINE_MACHINE_KINDS, { error: `machines must be one of ${ENGINE_MACHINE_KINDS.join(", ")}` }).default("auto"),
});
export type TEngineConfig = z.infer<typeof ZEngineConfig>;

export const ENGINE_KINDS = ["docker", "swarm"] as const;
export const NODE_ROLES = ["manager", "worker"] as const;

export const ZEngineNodeView = z.object({
  name: z.string().describe("The node's hostname (what topology.placement.pin names)"),
  role: z.enum(NODE_ROLES),
  cpus: z.number().describe("The node's CPUs"),
  memoryBytes: z.number().describe("The node's memory in bytes"),
  state: z.string().describe("Swarm's node state: ready, down, unknown, disconnected (local: ready)"),
  availability: z.string().describe("active, pause or drain: only active nodes take a run's containers"),
  address: z.string().describe("The node's address as Swarm reports it (local: empty)"),
});
export type TEngineNodeView = z.infer<typeof ZEngineNodeView>;

export const ZEngineView = z.object({
  name: z.string(),
  kind: z.enum(ENGINE_KINDS),
  reachable: z.boolean().describe("Whether the engine answered just now (local: always true)"),
  error: z.string().nullable().describe("Why it is not reachable"),
  cpus: z.number().describe("All nodes' CPUs together (0 when unreachable)"),
  memoryBytes: z.number().describe("All nodes' memory together in bytes (0 when unreachable)"),
  nodes: z.array(ZEngineNodeView),
});
export type TEngineView = z.infer<typeof ZEngineView>;

/** A node as Docker's `GET /nodes` gives it (the fields the lab reads). */
export type TSwarmNodeJson = {
  Description?: { Hostname?: string; Resources?: { NanoCPUs?: number; MemoryBytes?: number } };
  Spec?: { Role?: string; Availability?: string };
  Status?: { State?: string; Addr?: string };
};

/** A Swarm node as the lab lists it (docker node ls's facts, with its CPUs and memory). */
export function swarmNodeView(n: TSwarmNodeJson): TEngineNodeView {
  return {
    name: n.Description?.Hostname ?? "",
    role: n.Spec?.Role === "manager" ? "manager" : "worker",
    cpus: Math.round(((n.Description?.Resources?.NanoCPUs ?? 0) / 1e9) * 1000) / 1000,
    memoryBytes: n.Description?.Resources?.MemoryBytes ?? 0,
    state: n.Status?.State ?? "unknown",
    availability: n.Spec?.Availability ?? "unknown",
    address: n.Status?.Addr ?? "",
  };
}

/** How a client reaches an engine's endpoint: a unix socket, or a host and port, over TLS with tlsDir's files. */
export type TEngineConnection =
  | { socketPath: string }
  | { protocol: "http"; host: string; port: number }
  | { protocol: "https"; host: string; port: number; tlsFiles: { ca: string; cert: string; key: string } };

/**
 * An endpoint the contract accepts (`endpoint()`) as a client's options: `unix:///path` a socket;
 * `tcp://HOST:PORT` a host (an IPv6 address unbracketed) and port, over TLS when tlsDir is given
 * (its ca.pem, cert.pem and key.pem). Anything else throws, naming the endpoint.
 */
export function engineConnection(endpoint: string, tlsDir: string | null): TEngineConnection {
  const socket = UNIX_ENDPOINT.exec(endpoint)?.[1];
  if (socket) return { socketPath: socket };
  const tcp = ENDPOINT.exec(endpoint);
  if (!tcp || !validPort(tcp[2]!)) throw new Error(`engine endpoint ${JSON.stringify(endpoint)} is not tcp://host:port or unix:///path`);
  const host = tcp[1]!.replace(/^\[(.*)\]$/, "$1");
  const port = Number(tcp[2]);
  if (tlsDir === null) return { protocol: "http", host, port };
  const dir = tlsDir.replace(/\/+$/, "");
  return { protocol: "https", host, port, tlsFiles: { ca: `${dir}/ca.pem`, cert: `${dir}/cert.pem`, key: `${dir}/key.pem` } };
}

/**
 * A Docker client's options for an endpoint (engineConnection), the TLS files read with `read`
 * (the caller's I/O): what the lab, the web and the worker each construct their client from.
 */
export function engineClientOptions<B>(
  endpoint: string,
  tlsDir: string | null,
  read: (path: string) => B,
): { socketPath: string } | { protocol: "http" | "https"; host: string; port: number; ca?: B; cert?: B; key?: B } {
  const c = engineConnection(endpoint, tlsDir);
  if ("socketPath" in c || c.protocol === "http") return c;
  const { tlsFiles, ...rest } = c;
  return { ...rest, ca: read(tlsFiles.ca), cert: read(tlsFiles.cert), key: read(tlsFiles.key) };
}

/** What a configured node's own engine says it is (`GET /info`): its Swarm node id (empty when in no swarm) and name. */
export type TNodeEngineIdentity = { nodeId: string; name: string } | { error: string };

/**
 * A config checked against the cluster it names (`lab engine add`): each `--node` must be a node
 * of the swarm the manager leads, and its endpoint that node's own engine. `errors` refuse the
 * config (a run could never use such a node); `warnings` let it be saved (a node whose engine does
 * not answer now; a node with no endpoint, which takes no run's containers).
 */
export function checkEngineNodes(
  config: Pick<TEngineConfig, "manager" | "nodes">,
  swarm: readonly { id: string; hostname: string }[],
  identities: ReadonlyMap<string, TNodeEngineIdentity>,
): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const byName = new Map(swarm.map((n) => [n.hostname, n]));
  const byId = new Map(swarm.map((n) => [n.id, n]));
  const known = [...byName.keys()].sort().join(", ") || "none";
  for (const n of config.nodes) {
    const node = byName.get(n.name);
    if (!node) {
      errors.push(`--node ${n.name}: the swarm of ${config.manager} has no node of that name (its nodes: ${known})`);
      continue;
    }
    const identity = identities.get(n.name);
    if (!identity) continue;
    if ("error" in identity) {
      warnings.push(
        `--node ${n.name}: its engine ${n.endpoint} did not answer (${identity.error}): runs placed on ${n.name} fail until it does`,
      );
    } else if (identity.nodeId === "") {
      errors.push(`--node ${n.name}=${n.endpoint}: that engine (${identity.name}) is in no swarm, not node ${n.name}'s`);
    } else if (identity.nodeId !== node.id) {
      const other = byId.get(identity.nodeId)?.hostname;
      errors.push(
        `--node ${n.name}=${n.endpoint}: that engine is ${other ? `node ${other}'s` : `another swarm's node (${identity.name})`}, not ${n.name}'s`,
      );
    }
  }
  const configured = new Set(config.nodes.map((n) => n.name));
  const missing = [...byName.keys()].filter((h) => !configured.has(h)).sort();
  if (missing.length > 0) {
    warnings.push(
      `node${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of the swarm ${missing.length > 1 ? "have" : "has"} no --node endpoint: no run's containers are placed there`,
    );
  }
  return { errors, warnings };
}

/** The nodes that take a run's containers, as host validation and placement need them. */
export type TEngineNode = { name: string; cpus: number; memoryBytes: number; availability: string; state?: string };

/** An engine's view from its nodes: the totals over them. */
export function engineTotals(nodes: readonly Pick<TEngineNodeView, "cpus" | "memoryBytes">[]): { cpus: number; memoryBytes: number } {
  return {
    cpus: Math.round(nodes.reduce((s, n) => s + n.cpus, 0) * 1000) / 1000,
    memoryBytes: nodes.reduce((s, n) => s + n.memoryBytes, 0),
  };
}

export const PLACEMENT_STRATEGIES = ["spread", "pack"] as const;
export const PLACEMENT_PINS = { max: 16 } as const;

/**
 * Where a run's containers go on an engine's nodes (plan/placement.ts places them): `spread` (the
 * default) puts a role's replicas on different nodes, `pack` fills a node's CPUs before the next;
 * `pin` puts every container of a role on one node; `loadgen.separate` keeps the load generators
 * off the nodes of the system under test. On `local` everything is on its one node.
 */
export const ZPlacement = strict("topology.placement", {
  strategy: z
    .enum(PLACEMENT_STRATEGIES, { error: `topology.placement.strategy must be one of: ${PLACEMENT_STRATEGIES.join(", ")}` })
    .default("spread"),
  pin: z
    .record(
      z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, { error: "topology.placement.pin's keys must be role names (app, lb, db…)" }),
      nodeName("topology.placement.pin[role]"),
      { error: "topology.placement.pin must be an object {role: node name}" },
    )
    .refine((p) => Object.keys(p).length <= PLACEMENT_PINS.max, {
      error: `topology.placement.pin may pin at most ${PLACEMENT_PINS.max} roles`,
    })
    .meta({ maxProperties: PLACEMENT_PINS.max })
    .optional(),
  loadgen: strict("topology.placement.loadgen", {
    separate: z.boolean({ error: "topology.placement.loadgen.separate must be true or false" }).default(false),
  }).optional(),
});
export type TPlacement = z.infer<typeof ZPlacement>;
export type TPlacementInput = z.input<typeof ZPlacement>;
