import { growth, total } from "../figures";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";
import { APP_PORT } from "../nginx/nginx-conf";
import type { TRunCreate } from "../../contract/run";
import { BROKER_HOST, BROKER_PORT, KAFKA_TOPIC, brokerPartitions } from "../kafka";
import { runtimeThreads } from "../service/runtime";
import type { ComponentModule, PlannedContainer, PlanContext } from "../types";

export const DOWNSTREAM_MODES = ["none", "sync", "async"] as const;

/**
 * Where each request hands its event after its own work: nowhere, to the `logs` service over HTTP
 * (the request waits for it), or to Kafka (the request answers once the event is queued in the
 * service's Kafka client, without waiting for the broker; acknowledgements are counted as they
 * come, and `consumer` replicas do the work later).
 */
export const ZDownstream = strict("downstream", {
  mode: oneOf("downstream.mode", DOWNSTREAM_MODES).default("none"),
  replicas: int("downstream.replicas", LIMITS.replicas).default(1),
  cpus: num("downstream.cpus", LIMITS.cpus).optional(),
  memoryMb: int("downstream.memoryMb", LIMITS.memoryMb).default(256),
  /** The downstream work per event: N × JSON-encode a random 50-character string. */
  cpuIterations: int("downstream.cpuIterations", LIMITS.cpuIterations).default(1000),
});

export const LOGS_ROLE = "logs";
export const CONSUMER_ROLE = "consumer";
export const LOGS_URL = `http://${LOGS_ROLE}:${APP_PORT}/events`;
export const CONSUMER_GROUP = "consumers";

/** The service's environment for its downstream hand-off. */
export function downstreamEnv(run: TRunCreate): Record<string, string> {
  const d = run.topology.downstream;
  return {
    TESTBED_DOWNSTREAM: d.mode,
    ...(d.mode === "sync" && { TESTBED_LOGS_URL: LOGS_URL }),
    ...(d.mode === "async" && kafkaClientEnv(run)),
  };
}

export function kafkaClientEnv(run: TRunCreate): Record<string, string> {
  return {
    TESTBED_KAFKA_BROKERS: `${BROKER_HOST}:${BROKER_PORT}`,
    TESTBED_KAFKA_TOPIC: KAFKA_TOPIC,
    TESTBED_KAFKA_PARTITIONS: String(brokerPartitions(run)),
    TESTBED_KAFKA_GROUP: CONSUMER_GROUP,
  };
}

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
        ...(role === CONSUMER_ROLE && kafkaClientEnv(ctx.run)),
      },
      cpus: d.cpus,
      memoryMb: d.memoryMb,
      // The consumers only pull from the broker; the logs service takes the replicas' calls.
      ...(role === LOGS_ROLE && { ports: [APP_PORT] }),
      tier: 1,
      ready: [{ kind: "http", port: APP_PORT, path: "/health" }],
      stats: { port: APP_PORT, path: "/stats" },
    }),
  );
}

/** The `logs` service the requests call synchronously. */
export const logs: ComponentModule = {
  kind: "logs",
  images: (run) => (run.topology.downstream.mode === "sync" ? ["testbed"] : []),
  plan: (ctx) => (ctx.run.topology.downstream.mode === "sync" ? workers(ctx, LOGS_ROLE, "logs") : []),
  figures: (input, run): Record<string, number> =>
    run.topology.downstream.mode === "sync" ? { "logs.handled": growth(input, LOGS_ROLE, (s) => s.consumed) } : {},
};

/** The consumers that read the broker's topic and do the downstream work. */
export const consumer: ComponentModule = {
  kind: "consumer",
  images: (run) => (run.topology.downstream.mode === "async" ? ["testbed"] : []),
  plan: (ctx) => (ctx.run.topology.downstream.mode === "async" ? workers(ctx, CONSUMER_ROLE, "consumer") : []),
  figures: (input, run): Record<string, number> => {
    if (run.topology.downstream.mode !== "async") return {};
    return {
      "broker.consumed": growth(input, CONSUMER_ROLE, (s) => s.consumed),
      // Lag in events: acknowledged by the broker but not yet worked off by a consumer.
      "broker.lag": Math.max(
        0,
        total(input.current, "app", (s) => s.downstream.sent) - total(input.current, CONSUMER_ROLE, (s) => s.consumed),
      ),
    };
  },
};
