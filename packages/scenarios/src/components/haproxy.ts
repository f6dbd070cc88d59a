import { HAPROXY_CFG_PATH, renderHaproxyCfg } from "../haproxy";
import { BALANCER_HOST, BALANCER_ROLE, balancerReady, balancerSettings, type HaproxyAlgorithm } from "./balancer";
import { replicaHost } from "./service";
import type { ComponentModule } from "./types";

/**
 * HAProxy 2.6 in front of the service replicas (kind `haproxy` of the balancer; its schema is
 * ZBalancer in ./balancer.ts). It finds the replicas through Docker's DNS (the shared alias `app`).
 */
export const haproxy: ComponentModule = {
  kind: "haproxy",
  images: (run) => (run.topology.balancer.kind === "haproxy" ? ["haproxy"] : []),
  plan: ({ run, container }) => {
    const b = balancerSettings(run.topology.balancer);
    if (b?.kind !== "haproxy") return [];
    const replicas = run.topology.service.replicas;
    const backends = Array.from({ length: replicas }, (_, i) => replicaHost(i));
    const cfg = renderHaproxyCfg({
      algorithm: b.algorithm as HaproxyAlgorithm,
      replicas,
      maxFails: b.maxFails,
      failTimeoutSeconds: b.failTimeoutSeconds,
      retryNextUpstream: b.retryNextUpstream,
    });
    return [
      container({
        index: 0,
        role: BALANCER_ROLE,
        component: "haproxy",
        title: "the balancer",
        image: "haproxy",
        hostname: BALANCER_HOST,
        cpus: b.cpus,
        files: [{ path: HAPROXY_CFG_PATH, content: cfg }],
        // Started once every replica is on the network and healthy, so its first DNS answer has them all.
        tier: 2,
        ready: balancerReady(b.algorithm, backends),
      }),
    ];
  },
};
