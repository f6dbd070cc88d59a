/**
 * Names the components, the plan, the load generators and the apps share: ports, roles, host
 * names, paths and labels. A leaf: it imports nothing, so anything may import it.
 */

/** The service's HTTP port (the testbed's, a hot-key server's), and the balancer's. */
export const APP_PORT = 8080;
export const LB_PORT = 8080;
/** The testbed's gRPC server port (TESTBED_GRPC_PORT), beside its HTTP port. */
export const GRPC_PORT = 9090;

export const HEALTH_PATH = "/health";
export const STATS_PATH = "/stats";

/** The service replicas' role, and the network alias every replica carries besides `app-<i>` (Docker's DNS answers it with all of them). */
export const SERVICE_ROLE = "app";
export const SERVICE_ALIAS = "app";
/** Host name of replica i on the run network; the balancers' upstreams and X-Backend use it. */
export const replicaHost = (i: number): string => `${SERVICE_ROLE}-${i}`;

export const BALANCER_ROLE = "lb";
export const BALANCER_HOST = "lb";
export const LOADGEN_ROLE = "loadgen";
export const LOGS_ROLE = "logs";
export const CONSUMER_ROLE = "consumer";
export const STORE_ROLE = "db";
export const STORE_HOST = "db";
export const CACHE_ROLE = "cache";
/** Fault plumbing: a stopped target's network holder and a network fault's proxy. */
export const NETNS_ROLE = "netns";
export const PROXY_ROLE = "proxy";

/** Lowercase letters, digits and inner hyphens (a cuid, a uuid): the id ends up in Docker names. */
export const RUN_ID_PATTERN = /^[a-z0-9][a-z0-9-]{6,62}[a-z0-9]$/;

/** The labels every Docker object of a run carries. */
export const LABELS = {
  managed: "scalelab.managed",
  run: "scalelab.run",
  role: "scalelab.role",
  /** Which control plane (database) the run belongs to, so a sweep leaves other planes' runs alone. */
  instance: "scalelab.instance",
} as const;
