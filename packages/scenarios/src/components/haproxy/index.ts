import { HAPROXY_CFG_PATH, HAPROXY_STATS_PATH, HAPROXY_STATS_PORT, renderHaproxyCfg } from "./haproxy-cfg";
import { haproxyFigures } from "./stats";
import { balancerComponent, balancerKindForm } from "../balancer";
import { HaproxyAlgorithm } from "./config";

/**
 * HAProxy 2.6 in front of the service replicas (kind `haproxy` of the balancer; its schema is
 * ZBalancer in ./balancer.ts). It finds the replicas through Docker's DNS (the shared alias `app`);
 * its statistics (servers up, sessions, retries, errors, failed checks) are read each second.
 */
export const haproxy = balancerComponent(
  "haproxy",
  HAPROXY_CFG_PATH,
  (b, backends, protocol) =>
    renderHaproxyCfg({
      algorithm: b.algorithm as HaproxyAlgorithm,
      replicas: backends.length,
      protocol,
      maxFails: b.maxFails,
      failTimeoutSeconds: b.failTimeoutSeconds,
      retryNextUpstream: b.retryNextUpstream,
    }),
  {
    form: balancerKindForm("haproxy", "HAProxy", "haproxyAlgorithm", {
      roundrobin: "roundrobin",
      leastconn: "leastconn",
      source: "source (per client)",
      random: "random",
      first: "first",
    }),
    stats: { port: HAPROXY_STATS_PORT, path: `${HAPROXY_STATS_PATH};csv`, format: "haproxy" },
    figures: (input, run) => {
      if (run.topology.balancer.kind !== "haproxy" || !input.haproxy) return {};
      const figures = haproxyFigures(input.haproxy.current, input.haproxy.previous);
      return { ...figures, "lb.down": Math.max(0, run.topology.service.replicas - (figures["lb.up"] ?? 0)) };
    },
  },
);
