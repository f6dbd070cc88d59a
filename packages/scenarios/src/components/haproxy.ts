import { HAPROXY_CFG_PATH, renderHaproxyCfg } from "../haproxy";
import { balancerComponent, type HaproxyAlgorithm } from "./balancer";

/**
 * HAProxy 2.6 in front of the service replicas (kind `haproxy` of the balancer; its schema is
 * ZBalancer in ./balancer.ts). It finds the replicas through Docker's DNS (the shared alias `app`).
 */
export const haproxy = balancerComponent("haproxy", HAPROXY_CFG_PATH, (b, backends, protocol) =>
  renderHaproxyCfg({
    algorithm: b.algorithm as HaproxyAlgorithm,
    replicas: backends.length,
    protocol,
    maxFails: b.maxFails,
    failTimeoutSeconds: b.failTimeoutSeconds,
    retryNextUpstream: b.retryNextUpstream,
  }),
);
