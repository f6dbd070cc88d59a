import { LIMITS, num, oneOf, strict } from "../fields";
import { LB_PORT, NGINX_CONF_PATH, renderNginxConf } from "../nginx";
import { HEALTH_PATH, replicaHost } from "./service";
import type { ComponentModule } from "./types";

export const BALANCER_KINDS = ["nginx"] as const;
export const BALANCER_ALGORITHMS = ["round_robin", "least_conn"] as const;

export const ZBalancer = strict("balancer", {
  kind: oneOf("balancer.kind", BALANCER_KINDS).default("nginx"),
  algorithm: oneOf("balancer.algorithm", BALANCER_ALGORITHMS).default("round_robin"),
  /** CPU limit of the balancer container; omitted = unlimited. */
  cpus: num("balancer.cpus", LIMITS.cpus).optional(),
});

export const BALANCER_ROLE = "lb";
export const BALANCER_HOST = "lb";

/** nginx in front of the service replicas; the load generator's only target. */
export const nginx: ComponentModule = {
  kind: "nginx",
  images: () => ["nginx"],
  plan: ({ run, container }) => {
    const { balancer, service } = run.topology;
    const backends = Array.from({ length: service.replicas }, (_, i) => replicaHost(i));
    return [
      container({
        index: 0,
        role: BALANCER_ROLE,
        component: "nginx",
        title: "the balancer",
        image: "nginx",
        hostname: BALANCER_HOST,
        cpus: balancer.cpus,
        files: [{ path: NGINX_CONF_PATH, content: renderNginxConf({ algorithm: balancer.algorithm, upstreams: backends }) }],
        // nginx resolves its upstreams when it starts: after the replicas are on the network.
        tier: 2,
        ready: [{ kind: "backends", port: LB_PORT, path: HEALTH_PATH, backends }],
      }),
    ];
  },
};
