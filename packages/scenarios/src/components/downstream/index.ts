import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { APP_PORT, CONSUMER_ROLE, HEALTH_PATH, LOGS_ROLE, SERVICE_ROLE, STATS_PATH } from "../../names";
import { growth, total } from "../figures";
import { runtimeThreads } from "../service/runtime";
import { ComponentModule, PlannedContainer, PlanContext, RoleDecl } from "../types";
import { ComponentForm, unless, when } from "../form";

export const LOGS_URL = `http://${LOGS_ROLE}:${APP_PORT}/events`;

/** The service's environment for its downstream hand-off (an async one adds its broker's, from the broker's clientEnv). */
function downstreamEnv(run: TRunCreate): Record<string, string> {
  const d = run.topology.downstream;
  return { TESTBED_DOWNSTREAM: d.mode, ...(d.mode === "sync" && { TESTBED_LOGS_URL: LOGS_URL }) };
}

const downstreamRoles = (run: TRunCreate, mode: "sync" | "async", role: string): RoleDecl[] => {
  const d = run.topology.downstream;
  return d.mode === mode
    ? [{ role, count: d.replicas, incoming: role === LOGS_ROLE, path: "topology.downstream", cpus: d.cpus, memoryMb: d.memoryMb }]
    : [];
};

function workers(ctx: PlanContext, role: string, kind: string): PlannedContainer[] {
  const d = ctx.run.topology.downstream;
  return Array.from({ length: d.replicas }, (_, i) =>
    ctx.container({
      index: i,
      role,
      component: kind,
      title: `${role} replica ${role}-${i}`,
      image: "testbed",
      hostname: `${role}-${i}`,
      // The shared alias spreads the service's calls over the logs replicas (Docker DNS round robin).
      aliases: [`${role}-${i}`, role],
      env: {
        TESTBED_ROLE: role,
        TESTBED_PORT: String(APP_PORT),
        TESTBED_DOWNSTREAM_CPU_ITERATIONS: String(d.cpuIterations),
        ...runtimeThreads(undefined, d.cpus),
        ...(role === CONSUMER_ROLE && ctx.clientEnv("broker")),
      },
      cpus: d.cpus,
      memoryMb: d.memoryMb,
      // The consumers only pull from the broker; the logs service takes the replicas' calls.
      ...(role === LOGS_ROLE && { ports: [APP_PORT] }),
      tier: 1,
      ready: [{ kind: "http", port: APP_PORT, path: HEALTH_PATH }],
      stats: { port: APP_PORT, path: STATS_PATH },
    }),
  );
}

const DOWNSTREAM_ON = unless("topology.downstream.mode", "none");

/** The run form's Downstream section (the testbed's hand-off; the broker's section is its own). */
const downstreamForm: ComponentForm = {
  sections: [
    {
      key: "downstream",
      order: 30,
      title: "Downstream",
      hint: "Where each request hands its event after its own work.",
      when: when("topology.service.kind", "testbed"),
      fields: [
        {
          path: "topology.downstream.mode",
          label: "Hand-off",
          wide: true,
          options: {
            none: "none — the request ends with its own work",
            sync: "sync — calls the logs service and waits for it",
            async: "async — hands the event to a broker; consumers work it off later",
          },
        },
        { path: "topology.downstream.replicas", label: "Replicas (logs or consumers)", when: DOWNSTREAM_ON },
        {
          path: "topology.downstream.cpus",
          label: "CPU per replica",
          placeholder: "unlimited",
          hint: "Empty = no limit.",
          when: DOWNSTREAM_ON,
        },
        { path: "topology.downstream.memoryMb", label: "Memory per replica (MB)", when: DOWNSTREAM_ON },
        { path: "topology.downstream.cpuIterations", label: "CPU work per event", hint: "JSON encodes per event.", when: DOWNSTREAM_ON },
      ],
    },
  ],
};

/** The `logs` service the requests call synchronously. */
export const logs: ComponentModule = {
  kind: "logs",
  slot: "downstream",
  roles: (run) => downstreamRoles(run, "sync", LOGS_ROLE),
  presentation: {
    [LOGS_ROLE]: {
      one: "logs replica",
      many: "logs replicas",
      name: "Logs service",
      column: 3,
      row: 0,
      color: "#e8590c",
      label: "hostname",
    },
  },
  edges: [{ from: SERVICE_ROLE, to: LOGS_ROLE, kind: "sync" }],
  clientEnv: downstreamEnv,
  figureDefs: [{ key: "logs.handled", label: "Handled by logs", unit: "/s", kind: "rate", chart: "downstream" }],
  form: downstreamForm,
  setup: [
    {
      key: "downstream",
      label: "Downstream",
      show: ({ topology: { downstream: d } }) =>
        d.mode === "none" ? "none" : `${d.mode}, ${d.replicas} × ${d.cpus ?? "unlimited"} CPU, ${d.cpuIterations} iterations`,
    },
  ],
  images: (run) => (run.topology.downstream.mode === "sync" ? ["testbed"] : []),
  plan: (ctx) => (ctx.run.topology.downstream.mode === "sync" ? workers(ctx, LOGS_ROLE, "logs") : []),
  figures: (input, run): Record<string, number> =>
    run.topology.downstream.mode === "sync" ? { "logs.handled": growth(input, LOGS_ROLE, (s) => s.consumed) } : {},
};

/** The consumers that read the broker's topic and do the downstream work. */
export const consumer: ComponentModule = {
  kind: "consumer",
  slot: "downstream",
  roles: (run) => downstreamRoles(run, "async", CONSUMER_ROLE),
  presentation: {
    [CONSUMER_ROLE]: { one: "consumer", many: "consumers", name: "Consumer", column: 4, color: "#ae3ec9", label: "hostname" },
  },
  images: (run) => (run.topology.downstream.mode === "async" ? ["testbed"] : []),
  plan: (ctx) => (ctx.run.topology.downstream.mode === "async" ? workers(ctx, CONSUMER_ROLE, "consumer") : []),
  figures: (input, run): Record<string, number> => {
    if (run.topology.downstream.mode !== "async") return {};
    return {
      "broker.consumed": growth(input, CONSUMER_ROLE, (s) => s.consumed),
      // Lag in events: acknowledged by the broker but not yet worked off by a consumer.
      "broker.lag": Math.max(
        0,
        total(input.current, SERVICE_ROLE, (s) => s.downstream.sent) - total(input.current, CONSUMER_ROLE, (s) => s.consumed),
      ),
    };
  },
};
