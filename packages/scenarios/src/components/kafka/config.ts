/** Kafka as a broker kind: one node in KRaft mode. */
export const KAFKA_BROKER = { kind: "kafka", label: "Kafka (one node, KRaft)" } as const;
