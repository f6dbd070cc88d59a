import { BALANCER_HOST, BALANCER_ROLE, HEALTH_PATH, LB_PORT, SERVICE_ROLE, replicaHost } from "../../names";
import { dialHost } from "../fault-proxy";
import { TWorkload } from "../../contract/workload";
import { ComponentModule, PlannedContainer, Probe } from "../types";
import { BalancerAlgorithm, BalancerKind, balancerLabel, BalancerSettings, balancerSettings, STICKY_ALGORITHMS } from "./config";

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
    slot: "balancer",
    figures: own.figures,
    roles: (run) => {
      const b = balancerSettings(run.topology.balancer);
      return b?.kind === kind ? [{ role: BALANCER_ROLE, count: 1, incoming: true, path: "topology.balancer", cpus: b.cpus }] : [];
    },
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

/** The balancer slot: how the balancer is shown and its setup rows; each kind plans its own container. */
export const balancer: ComponentModule = {
  kind: "balancer",
  slot: "balancer",
  images: () => [],
  plan: () => [],
  roles: () => [],
  presentation: {
    [BALANCER_ROLE]: { one: "balancer", many: "balancers", name: "Balancer", column: 1, color: "#0c8599", label: "title" },
  },
  edges: [{ from: BALANCER_ROLE, to: SERVICE_ROLE, kind: "http" }],
  setup: [
    { key: "balancer", label: "Balancer", show: (s) => balancerLabel(s.topology.balancer) },
    {
      key: "health",
      label: "Passive health checks",
      show: (s) => {
        const b = balancerSettings(s.topology.balancer);
        return b
          ? `max fails ${b.maxFails}, fail timeout ${b.failTimeoutSeconds} s, ${b.retryNextUpstream ? "retries the next replica" : "no retry"}`
          : "none (no balancer)";
      },
    },
  ],
};
