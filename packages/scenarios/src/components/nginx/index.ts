import { NGINX_CONF_PATH, renderNginxConf } from "./nginx-conf";
import { balancerComponent, balancerKindForm } from "../balancer";
import { NginxAlgorithm } from "./config";

/** nginx in front of the service replicas; the load generator's only target. */
export const nginx = balancerComponent(
  "nginx",
  NGINX_CONF_PATH,
  (b, upstreams, protocol, service) =>
    renderNginxConf({
      port: service.port,
      algorithm: b.algorithm as NginxAlgorithm,
      upstreams,
      protocol,
      maxFails: b.maxFails,
      failTimeoutSeconds: b.failTimeoutSeconds,
      retryNextUpstream: b.retryNextUpstream,
    }),
  {
    // The first algorithm field keeps the id the end-to-end tests have used from the start.
    form: balancerKindForm("nginx", "nginx", "algorithm", {
      round_robin: "Round robin",
      least_conn: "Least connections",
      ip_hash: "IP hash (per client)",
      hash: "Hash (per request)",
      random: "Random (two, least conn)",
    }),
  },
);
