import { z } from "zod";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";
import { LB_PORT, NGINX_CONF_PATH, renderNginxConf } from "../nginx/nginx-conf";
import { dialHost } from "../fault-proxy";
import { HEALTH_PATH, replicaHost, SERVICE_ROLE } from "../service";
import type { TWorkload } from "../../contract/run";
import type { ComponentModule, PlannedContainer, Probe } from "../types";

/** `none`: no balancer container; the load goes to the service's shared alias and Docker's DNS spreads it. */
export const BALANCER_KINDS = ["nginx", "haproxy", "none"] as const;
export type BalancerKind = (typeof BALANCER_KINDS)[number];

/** nginx's `upstream` methods; `hash` keys on `$request_id`, `random` is `random two least_conn`. */
export const NGINX_ALGORITHMS = ["round_robin", "least_conn", "ip_hash", "hash", "random"] as const;
/** HAProxy's `balance` algorithms, by their own names. */
export const HAPROXY_ALGORITHMS = ["roundrobin", "leastconn", "source", "random", "first"] as const;
export type NginxAlgorithm = (typeof NGINX_ALGORITHMS)[number];
export type HaproxyAlgorithm = (typeof HAPROXY_ALGORITHMS)[number];

/** Every algorithm name of every kind (the schema's enum); which ones a kind takes is `ALGORITHMS_BY_KIND`. */
export const BALANCER_ALGORITHMS = [...new Set([...NGINX_ALGORITHMS, ...HAPROXY_ALGORITHMS])] as unknown as readonly [
  NginxAlgorithm | HaproxyAlgorithm,
  ...(NginxAlgorithm | HaproxyAlgorithm)[],
];
export type BalancerAlgorithm = NginxAlgorithm | HaproxyAlgorithm;

export const ALGORITHMS_BY_KIND: Record<BalancerKind, readonly BalancerAlgorithm[]> = {
  nginx: NGINX_ALGORITHMS,
  haproxy: HAPROXY_ALGORITHMS,
  none: [],
};
export const DEFAULT_ALGORITHM: Record<Exclude<BalancerKind, "none">, BalancerAlgorithm> = { nginx: "round_robin", haproxy: "roundrobin" };

/** Passive health checks, by nginx's names (`max_fails`, `fail_timeout`, `proxy_next_upstream`). */
export const HEALTH_KNOBS = ["maxFails", "failTimeoutSeconds", "retryNextUpstream"] as const;
export const HEALTH_DEFAULTS = { maxFails: 1, failTimeoutSeconds: 10, retryNextUpstream: true } as const;
export const BALANCER_LIMITS = { maxFails: { min: 0, max: 100 }, failTimeoutSeconds: { min: 1, max: 3600 } } as const;

const algorithmMessage = `balancer.algorithm must be one of: ${BALANCER_KINDS.filter((k) => k !== "none")
  .map((k) => `${ALGORITHMS_BY_KIND[k].join(", ")} (${k})`)
  .join("; ")}`;

/**
 * The balancer. The algorithm's names and default depend on the kind, so they are checked here
 * rather than by the enum; the health knobs and the algorithm are left out of the parsed value
 * when not given (`balancerSettings` fills the defaults), so that `none` can refuse them.
 */
export const ZBalancer = strict("balancer", {
  kind: oneOf("balancer.kind", BALANCER_KINDS).default("nginx"),
  /** Omitted = the kind's default: round_robin (nginx), roundrobin (haproxy). */
  algorithm: z.enum(BALANCER_ALGORITHMS, { error: algorithmMessage }).optional(),
  /** CPU limit of the balancer container; omitted = unlimited. */
  cpus: num("balancer.cpus", LIMITS.cpus).optional(),
  /** Failed attempts within failTimeoutSeconds before a replica is skipped; 0 = never skipped. Default 1. */
  maxFails: int("balancer.maxFails", BALANCER_LIMITS.maxFails).optional(),
  /** The window of maxFails and how long a failed replica is skipped. Default 10. */
  failTimeoutSeconds: int("balancer.failTimeoutSeconds", BALANCER_LIMITS.failTimeoutSeconds).optional(),
  /** A request that failed to connect (or timed out) is retried on another replica, hiding the failure. Default true. */
  retryNextUpstream: z.boolean({ error: "balancer.retryNextUpstream must be true or false" }).optional(),
}).superRefine((b, ctx) => {
  if (b.kind === "none") {
    for (const key of ["algorithm", "cpus", ...HEALTH_KNOBS] as const) {
      if (b[key] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `balancer.${key} applies only with a balancer (kind nginx or haproxy), not with kind none`,
        });
      }
    }
    return;
  }
  const allowed = ALGORITHMS_BY_KIND[b.kind];
  if (b.algorithm !== undefined && !allowed.includes(b.algorithm)) {
    ctx.addIssue({
      code: "custom",
      path: ["algorithm"],
      message: `balancer.algorithm must be one of: ${allowed.join(", ")} for kind ${b.kind} (${b.algorithm} is ${b.kind === "nginx" ? "haproxy" : "nginx"}'s name)`,
    });
  }
});
type TBalancerParsed = z.infer<typeof ZBalancer>;

export type BalancerSettings = {
  kind: Exclude<BalancerKind, "none">;
  algorithm: BalancerAlgorithm;
  cpus?: number;
  maxFails: number;
  failTimeoutSeconds: number;
  retryNextUpstream: boolean;
};

/** The balancer with every default filled in; undefined for kind none. */
export function balancerSettings(b: TBalancerParsed): BalancerSettings | undefined {
  if (b.kind === "none") return undefined;
  return {
    kind: b.kind,
    algorithm: b.algorithm ?? DEFAULT_ALGORITHM[b.kind],
    ...(b.cpus !== undefined && { cpus: b.cpus }),
    maxFails: b.maxFails ?? HEALTH_DEFAULTS.maxFails,
    failTimeoutSeconds: b.failTimeoutSeconds ?? HEALTH_DEFAULTS.failTimeoutSeconds,
    retryNextUpstream: b.retryNextUpstream ?? HEALTH_DEFAULTS.retryNextUpstream,
  };
}

/** The balancer as stored and shown: its defaults written out (`{kind: "none"}` stays as it is). */
export function explicitBalancer(b: TBalancerParsed): TBalancerParsed {
  return balancerSettings(b) ?? b;
}

/** "nginx round_robin", "haproxy leastconn", "none (Docker DNS)": for lists and comparisons. */
export function balancerLabel(b: TBalancerParsed): string {
  const s = balancerSettings(b);
  return s ? `${s.kind} ${s.algorithm}` : "none (Docker DNS)";
}

/** Algorithms that send every request of one client (the prober, the load generator) to one replica. */
export const STICKY_ALGORITHMS: readonly BalancerAlgorithm[] = ["ip_hash", "source", "first"];

/**
 * The balancer's readiness: every replica answered through it, or, for a sticky algorithm (which
 * shows one client one replica only), a healthy answer through it: the replicas' own /health
 * passed in the tier before.
 */
export function balancerReady(algorithm: BalancerAlgorithm, backends: string[], protocol: TWorkload["protocol"] = "http"): Probe[] {
  // A gRPC listener speaks HTTP/2 only: the balancer is ready once it listens (its replicas passed their own /health before).
  if (protocol === "grpc") return [{ kind: "tcp", port: LB_PORT }];
  return STICKY_ALGORITHMS.includes(algorithm)
    ? [{ kind: "http", port: LB_PORT, path: HEALTH_PATH }]
    : [{ kind: "backends", port: LB_PORT, path: HEALTH_PATH, backends }];
}

export const BALANCER_ROLE = "lb";
export const BALANCER_HOST = "lb";

/**
 * A balancer kind as a component: its image (named after the kind) and its config file, rendered
 * from the balancer's settings and the replicas' host names. The container is the same for every
 * kind: started after the replicas are on the network and healthy (nginx resolves its upstreams
 * when it starts, HAProxy's first DNS answer then has them all), ready once it serves them.
 */
export function balancerComponent(
  kind: Exclude<BalancerKind, "none">,
  configPath: string,
  render: (b: BalancerSettings, backends: string[], protocol: TWorkload["protocol"]) => string,
  own: Pick<PlannedContainer, "stats"> & Pick<ComponentModule, "figures"> = {},
): ComponentModule {
  return {
    kind,
    figures: own.figures,
    images: (run) => (run.topology.balancer.kind === kind ? [kind] : []),
    plan: ({ run, container }) => {
      const b = balancerSettings(run.topology.balancer);
      if (b?.kind !== kind) return [];
      const backends = Array.from({ length: run.topology.service.replicas }, (_, i) => replicaHost(i));
      // A replica behind a network-fault proxy is dialled by the proxy's name (./fault-proxy.ts).
      const upstreams = backends.map((host, i) => dialHost(run, { role: SERVICE_ROLE, index: i }, host));
      return [
        container({
          index: 0,
          role: BALANCER_ROLE,
          component: kind,
          title: "the balancer",
          image: kind,
          hostname: BALANCER_HOST,
          cpus: b.cpus,
          files: [{ path: configPath, content: render(b, upstreams, run.workload.protocol) }],
          ports: [LB_PORT],
          tier: 2,
          ready: balancerReady(b.algorithm, backends, run.workload.protocol),
          ...(own.stats && { stats: own.stats }),
        }),
      ];
    },
  };
}

/** nginx in front of the service replicas; the load generator's only target. */
export const nginx = balancerComponent("nginx", NGINX_CONF_PATH, (b, upstreams, protocol) =>
  renderNginxConf({
    algorithm: b.algorithm as NginxAlgorithm,
    upstreams,
    protocol,
    maxFails: b.maxFails,
    failTimeoutSeconds: b.failTimeoutSeconds,
    retryNextUpstream: b.retryNextUpstream,
  }),
);
