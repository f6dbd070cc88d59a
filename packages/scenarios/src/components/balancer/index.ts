import { BALANCER_HOST, BALANCER_ROLE, HEALTH_PATH, LB_PORT, SERVICE_ROLE, replicaHost } from "../../names";
import { UPSTREAM_HEADER } from "../../contract/backends";
import { serviceHealthPath, servicePort, TService } from "../service/config";
import { dialHost } from "../fault-proxy";
import { TWorkload } from "../../contract/workload";
import { ComponentModule, PlannedContainer, Probe } from "../types";
import { ComponentForm, unless, when } from "../form";
import { BalancerAlgorithm, BalancerKind, balancerLabel, BalancerSettings, balancerSettings, STICKY_ALGORITHMS } from "./config";

/**
 * The balancer's readiness: every replica answered through it, or, for a sticky algorithm (which
 * shows one client one replica only), a healthy answer through it: the replicas' own health path
 * passed in the tier before. A user's image names no replica itself: the balancer's header does.
 */
export function balancerReady(
  algorithm: BalancerAlgorithm,
  backends: string[],
  protocol: TWorkload["protocol"] = "http",
  image?: { healthPath: string },
): Probe[] {
  // A gRPC listener speaks HTTP/2 only: the balancer is ready once it listens (its replicas passed their own /health before).
  if (protocol === "grpc") return [{ kind: "tcp", port: LB_PORT }];
  const path = image?.healthPath ?? HEALTH_PATH;
  return STICKY_ALGORITHMS.includes(algorithm)
    ? [{ kind: "http", port: LB_PORT, path }]
    : [{ kind: "backends", port: LB_PORT, path, backends, ...(image && { header: UPSTREAM_HEADER }) }];
}

/** What a balancer's config needs of the service: its replicas' port and health path. */
export type ServiceEndpoint = { port: number; healthPath: string };
const serviceEndpoint = (s: TService): ServiceEndpoint => ({ port: servicePort(s), healthPath: serviceHealthPath(s) });

/**
 * A balancer kind as a component: its image (named after the kind) and its config file, rendered
 * from the balancer's settings and the replicas' host names. The container is the same for every
 * kind: started after the replicas are on the network and healthy (nginx resolves its upstreams
 * when it starts, HAProxy's first DNS answer then has them all), ready once it serves them.
 */
export function balancerComponent(
  kind: Exclude<BalancerKind, "none">,
  configPath: string,
  render: (b: BalancerSettings, backends: string[], protocol: TWorkload["protocol"], service: ServiceEndpoint) => string,
  own: Pick<PlannedContainer, "stats"> & Pick<ComponentModule, "figures" | "figureDefs" | "form"> = {},
): ComponentModule {
  return {
    kind,
    slot: "balancer",
    figures: own.figures,
    figureDefs: own.figureDefs,
    form: own.form,
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
          files: [{ path: configPath, content: render(b, upstreams, run.workload.protocol, serviceEndpoint(run.topology.service)) }],
          ports: [LB_PORT],
          tier: 2,
          ready: balancerReady(
            b.algorithm,
            backends,
            run.workload.protocol,
            run.topology.service.kind === "image" ? { healthPath: serviceHealthPath(run.topology.service) } : undefined,
          ),
          ...(own.stats && { stats: own.stats }),
        }),
      ];
    },
  };
}

const BALANCER_ON = unless("topology.balancer.kind", "none");

/** The run form's Balancer section; each kind adds its algorithm field after the kind. */
const balancerForm: ComponentForm = {
  sections: [
    {
      key: "balancer",
      order: 20,
      title: "Balancer",
      fields: [
        {
          path: "topology.balancer.kind",
          id: "balancer.kind",
          label: "Kind",
          wide: true,
          options: { none: "none — the load goes to the replicas through Docker's DNS" },
          deps: ["topology.balancer.algorithm"],
        },
        { path: "topology.balancer.cpus", label: "CPU", placeholder: "unlimited", hint: "Empty = no limit.", when: BALANCER_ON },
        {
          path: "topology.balancer.maxFails",
          label: "Max fails",
          hint: "Failures before a replica is skipped; 0 = never.",
          when: BALANCER_ON,
        },
        {
          path: "topology.balancer.failTimeoutSeconds",
          label: "Fail timeout (s)",
          hint: "How long a failed replica is skipped.",
          when: BALANCER_ON,
        },
        {
          path: "topology.balancer.retryNextUpstream",
          label: "Retry on another replica",
          hint: "Hides connection failures from the client.",
          when: BALANCER_ON,
        },
      ],
    },
  ],
};

/** A balancer kind in the form: its name in the kind's options and its algorithm field (the values it takes, labelled). */
export const balancerKindForm = (kind: string, label: string, id: string, algorithms: Record<string, string>): ComponentForm => ({
  options: [{ path: "topology.balancer.kind", value: kind, label }],
  fields: [
    {
      section: "balancer",
      after: "topology.balancer.kind",
      fields: [
        {
          path: "topology.balancer.algorithm",
          id,
          label: "Algorithm",
          subset: true,
          options: algorithms,
          when: when("topology.balancer.kind", kind),
        },
      ],
    },
  ],
});

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
  form: balancerForm,
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
