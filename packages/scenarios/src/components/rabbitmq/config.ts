/** RabbitMQ as a broker kind: one node, a durable queue the consumers share. */
export const RABBITMQ_BROKER = { kind: "rabbitmq", label: "RabbitMQ (one node, a durable queue)" } as const;
