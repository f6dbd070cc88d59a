import { NGINX_CONF_PATH, renderNginxConf } from "./nginx-conf";
import { balancerComponent } from "../balancer";
import { NginxAlgorithm } from "./config";

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
