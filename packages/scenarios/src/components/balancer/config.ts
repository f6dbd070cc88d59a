import { z } from "zod";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";
import { HAPROXY_BALANCER } from "../haproxy/config";
import { NGINX_BALANCER } from "../nginx/config";

/** The balancer kinds with a container, each from its own folder: its algorithms (by its own names) and their default. */
export const BALANCERS = [NGINX_BALANCER, HAPROXY_BALANCER] as const;

/** `none`: no balancer container; the load goes to the service's shared alias and Docker's DNS spreads it. */
export const BALANCER_KINDS = [...BALANCERS.map((b) => b.kind), "none"] as unknown as readonly [
  (typeof BALANCERS)[number]["kind"],
  ...((typeof BALANCERS)[number]["kind"] | "none")[],
];
export type BalancerKind = (typeof BALANCERS)[number]["kind"] | "none";
export type { NginxAlgorithm } from "../nginx/config";
export type { HaproxyAlgorithm } from "../haproxy/config";
export type BalancerAlgorithm = (typeof BALANCERS)[number]["algorithms"][number];

/** Every algorithm name of every kind (the schema's enum); which ones a kind takes is `ALGORITHMS_BY_KIND`. */
export const BALANCER_ALGORITHMS = [...new Set(BALANCERS.flatMap((b) => b.algorithms))] as unknown as readonly [
  BalancerAlgorithm,
  ...BalancerAlgorithm[],
];

export const ALGORITHMS_BY_KIND = Object.fromEntries([...BALANCERS.map((b) => [b.kind, b.algorithms]), ["none", []]]) as Record<
  BalancerKind,
  readonly BalancerAlgorithm[]
>;
export const DEFAULT_ALGORITHM = Object.fromEntries(BALANCERS.map((b) => [b.kind, b.defaultAlgorithm])) as Record<
  Exclude<BalancerKind, "none">,
  BalancerAlgorithm
>;
/** Algorithms that send every request of one client (the prober, the load generator) to one replica. */
export const STICKY_ALGORITHMS: readonly BalancerAlgorithm[] = BALANCERS.flatMap((b) => b.sticky);

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
  kind: oneOf("balancer.kind", BALANCER_KINDS).default(BALANCERS[0].kind),
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
          message: `balancer.${key} applies only with a balancer (kind ${BALANCERS.map((k) => k.kind).join(" or ")}), not with kind none`,
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
      message: `balancer.algorithm must be one of: ${allowed.join(", ")} for kind ${b.kind} (${b.algorithm} is ${BALANCERS.filter((o) =>
        (o.algorithms as readonly string[]).includes(b.algorithm!),
      )
        .map((o) => o.kind)
        .join(" and ")}'s name)`,
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

export type TBalancer = z.infer<typeof ZBalancer>;
