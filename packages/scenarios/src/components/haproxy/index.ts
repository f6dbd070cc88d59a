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
  (b, backends, protocol, service) =>
    renderHaproxyCfg({
      port: service.port,
      healthPath: service.healthPath,
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
    // Down = the replicas not up: a stopped replica's slot goes back to "no address" once DNS forgets it, like a slot never filled.
    figureDefs: [
      { key: "lb.up", label: "Servers up", unit: "", kind: "gauge", chart: "balancer" },
      { key: "lb.down", label: "Replicas not up", unit: "", kind: "gauge", chart: "balancer" },
      { key: "lb.sessions", label: "Current sessions", unit: "", kind: "gauge", chart: "balancer" },
      { key: "lb.retries", label: "Retries and redispatches", unit: "/s", kind: "rate", chart: "balancer" },
      { key: "lb.errors", label: "Connection, response and 5xx errors", unit: "/s", kind: "rate", chart: "balancer" },
      { key: "lb.checkFailures", label: "Failed health checks", unit: "/s", kind: "rate", chart: "balancer" },
    ],
    stats: { port: HAPROXY_STATS_PORT, path: `${HAPROXY_STATS_PATH};csv`, format: "haproxy" },
    figures: (input, run) => {
      if (run.topology.balancer.kind !== "haproxy" || !input.haproxy) return {};
      const figures = haproxyFigures(input.haproxy.current, input.haproxy.previous);
      return { ...figures, "lb.down": Math.max(0, run.topology.service.replicas - (figures["lb.up"] ?? 0)) };
    },
  },
);
