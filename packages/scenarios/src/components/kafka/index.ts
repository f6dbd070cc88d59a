import { growth } from "../figures";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";
import type { TRunCreate } from "../../contract/run";
import type { ComponentModule } from "../types";

export const BROKER_KINDS = ["kafka"] as const;

/** The message broker of an async topology: one Kafka node in KRaft mode. */
export const ZBroker = strict("broker", {
  kind: oneOf("broker.kind", BROKER_KINDS).default("kafka"),
  cpus: num("broker.cpus", LIMITS.cpus).optional(),
  memoryMb: int("broker.memoryMb", LIMITS.brokerMemoryMb).default(512),
});

export const BROKER_ROLE = "kafka";
export const BROKER_HOST = "kafka";
export const BROKER_PORT = 29092;
export const KAFKA_TOPIC = "events";
export const SERVER_PROPERTIES_PATH = "/opt/kafka/config/server.properties";

/** One partition per consumer replica, so every consumer of the group gets work. */
export const brokerPartitions = (run: TRunCreate) => run.topology.downstream.replicas;

/** Half the container's memory for the JVM heap; the rest is page cache, metaspace and threads. */
export const jvmHeapMb = (memoryMb: number) => Math.max(128, Math.floor(memoryMb / 2));

/**
 * server.properties of a single-node KRaft broker (Kafka 4.x). Every value is a constant or a
 * validated number. The node id, log dir and cluster id match the storage formatted in the image.
 */
export function renderServerProperties(opts: { partitions: number }): string {
  if (!Number.isInteger(opts.partitions) || opts.partitions < 1 || opts.partitions > 64) throw new Error("partitions must be 1–64");
  return [
    "# Single-node Kafka in KRaft mode (broker and controller in one process).",
    "process.roles=broker,controller",
    "node.id=1",
    "controller.quorum.voters=1@localhost:9093",
    `listeners=INTERNAL://:${BROKER_PORT},CONTROLLER://:9093`,
    `advertised.listeners=INTERNAL://${BROKER_HOST}:${BROKER_PORT}`,
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
    "auto.create.topics.enable=false",
    "",
  ].join("\n");
}

export const kafka: ComponentModule = {
  kind: "kafka",
  images: (run) => (run.topology.downstream.mode === "async" ? ["kafka"] : []),
  plan: ({ run, container }) => {
    if (run.topology.downstream.mode !== "async") return [];
    const b = run.topology.broker ?? ZBroker.parse({});
    return [
      container({
        index: 0,
        role: BROKER_ROLE,
        component: "kafka",
        title: "the Kafka broker",
        image: "kafka",
        hostname: BROKER_HOST,
        env: { KAFKA_HEAP_MB: String(jvmHeapMb(b.memoryMb)) },
        cpus: b.cpus,
        memoryMb: b.memoryMb,
        files: [{ path: SERVER_PROPERTIES_PATH, content: renderServerProperties({ partitions: brokerPartitions(run) }) }],
        ports: [BROKER_PORT],
        tier: 0,
        ready: [
          { kind: "log", pattern: "Kafka Server started" },
          { kind: "tcp", port: BROKER_PORT },
        ],
      }),
    ];
  },
  figures: (input, run): Record<string, number> =>
    run.topology.downstream.mode === "async" ? { "broker.produced": growth(input, "app", (s) => s.downstream.sent) } : {},
};
