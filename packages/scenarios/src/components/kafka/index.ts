import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { CONSUMER_ROLE, SERVICE_ROLE } from "../../names";
import { brokerOfKind } from "../broker";
import { ComponentModule } from "../types";
import { jvmHeapMb } from "../jvm";
import { KAFKA_BROKER } from "./config";

export const KAFKA_ROLE = "kafka";
export const KAFKA_HOST = "kafka";
export const KAFKA_PORT = 29092;
export const KAFKA_TOPIC = "events";
export const CONSUMER_GROUP = "consumers";
export const SERVER_PROPERTIES_PATH = "/opt/kafka/config/server.properties";

/**
 * One partition per consumer replica, so every consumer of the group gets work; beside a user's
 * image, one per service replica (the replicas may consume as one group).
 */
export const brokerPartitions = ({ topology: t }: TRunCreate) => (t.service.kind === "image" ? t.service.replicas : t.downstream.replicas);

/**
 * server.properties of a single-node KRaft broker (Kafka 4.x). Every value is a constant or a
 * validated number. The node id, log dir and cluster id match the storage formatted in the image.
 */
export function renderServerProperties(opts: { partitions: number; autoCreateTopics?: boolean }): string {
  if (!Number.isInteger(opts.partitions) || opts.partitions < 1 || opts.partitions > 64) throw new Error("partitions must be 1–64");
  return [
    "# Single-node Kafka in KRaft mode (broker and controller in one process).",
    "process.roles=broker,controller",
    "node.id=1",
    "controller.quorum.voters=1@localhost:9093",
    `listeners=INTERNAL://:${KAFKA_PORT},CONTROLLER://:9093`,
    `advertised.listeners=INTERNAL://${KAFKA_HOST}:${KAFKA_PORT}`,
    "listener.security.protocol.map=INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "inter.broker.listener.name=INTERNAL",
    "controller.listener.names=CONTROLLER",
    "log.dirs=/var/lib/kafka/data",
    "",
    "# One broker: every replication factor and min ISR is 1.",
    `num.partitions=${opts.partitions}`,
    "default.replication.factor=1",
    "min.insync.replicas=1",
    "offsets.topic.replication.factor=1",
    "offsets.topic.num.partitions=1",
    "transaction.state.log.replication.factor=1",
    "transaction.state.log.min.isr=1",
    "share.coordinator.state.topic.replication.factor=1",
    "share.coordinator.state.topic.min.isr=1",
    "group.initial.rebalance.delay.ms=0",
    "",
    "# The 128 MiB default makes small heaps die with OutOfMemoryError.",
    "log.cleaner.dedupe.buffer.size=8388608",
    // The testbed creates its topic; a user's service may name its own (KAFKA_TOPIC is a suggestion).
    `auto.create.topics.enable=${opts.autoCreateTopics === true}`,
    "",
  ].join("\n");
}

/** What the service and the consumers need to reach the broker (the testbed's Kafka client). */
export function kafkaClientEnv(run: TRunCreate): Record<string, string> {
  if (!brokerOfKind(run, "kafka")) return {};
  return {
    TESTBED_BROKER: "kafka",
    TESTBED_KAFKA_BROKERS: `${KAFKA_HOST}:${KAFKA_PORT}`,
    TESTBED_KAFKA_TOPIC: KAFKA_TOPIC,
    TESTBED_KAFKA_PARTITIONS: String(brokerPartitions(run)),
    TESTBED_KAFKA_GROUP: CONSUMER_GROUP,
  };
}

/** What a user's service gets to reach the broker: its bootstrap address and the lab's topic. */
export function kafkaServiceEnv(run: Pick<TRunCreate, "topology">): Record<string, string> {
  if (!brokerOfKind(run, "kafka")) return {};
  return { KAFKA_BROKERS: `${KAFKA_HOST}:${KAFKA_PORT}`, KAFKA_TOPIC };
}

export const kafka: ComponentModule = {
  kind: "kafka",
  slot: "broker",
  images: (run) => (brokerOfKind(run, "kafka") ? ["kafka"] : []),
  roles: (run) => {
    const b = brokerOfKind(run, "kafka");
    return b ? [{ role: KAFKA_ROLE, count: 1, incoming: true, path: "topology.broker", cpus: b.cpus, memoryMb: b.memoryMb }] : [];
  },
  presentation: {
    [KAFKA_ROLE]: { one: "broker", many: "brokers", name: "Broker (Kafka)", column: 3, row: 1, color: "#ae3ec9", label: "title" },
  },
  edges: [
    { from: SERVICE_ROLE, to: KAFKA_ROLE, kind: "async" },
    { from: KAFKA_ROLE, to: CONSUMER_ROLE, kind: "async" },
  ],
  clientEnv: kafkaClientEnv,
  serviceEnv: kafkaServiceEnv,
  form: { options: [{ path: "topology.broker.kind", value: KAFKA_BROKER.kind, label: KAFKA_BROKER.label }] },
  plan: ({ run, container }) => {
    const b = brokerOfKind(run, "kafka");
    if (!b) return [];
    return [
      container({
        index: 0,
        role: KAFKA_ROLE,
        component: "kafka",
        title: "the Kafka broker",
        image: "kafka",
        hostname: KAFKA_HOST,
        env: { KAFKA_HEAP_MB: String(jvmHeapMb(b.memoryMb)) },
        cpus: b.cpus,
        memoryMb: b.memoryMb,
        files: [
          {
            path: SERVER_PROPERTIES_PATH,
            content: renderServerProperties({ partitions: brokerPartitions(run), autoCreateTopics: run.topology.service.kind === "image" }),
          },
        ],
        ports: [KAFKA_PORT],
        tier: 0,
        ready: [
          { kind: "log", pattern: "Kafka Server started" },
          { kind: "tcp", port: KAFKA_PORT },
        ],
      }),
    ];
  },
};
