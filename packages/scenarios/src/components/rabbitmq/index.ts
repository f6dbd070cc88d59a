import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { CONSUMER_ROLE, SERVICE_ROLE } from "../../names";
import { brokerOfKind } from "../broker";
import { ComponentModule } from "../types";
import { RABBITMQ_BROKER } from "./config";

export const RABBITMQ_ROLE = "rabbitmq";
export const RABBITMQ_HOST = "rabbitmq";
export const AMQP_PORT = 5672;
/** The durable queue every event goes through; the consumers share it (competing consumers). */
export const AMQP_QUEUE = "events";
/** The image's user (rabbitmq.conf): the broker is reachable only on the run's own network. */
const AMQP_USER = "lab";
const AMQP_PASSWORD = "lab";
const AMQP_URL = `amqp://${AMQP_USER}:${AMQP_PASSWORD}@${RABBITMQ_HOST}:${AMQP_PORT}/`;
/** Unacknowledged deliveries per consumer: enough to keep a consumer busy, few enough to share the queue. */
export const AMQP_PREFETCH = 100;

/** What the service and the consumers need to reach the broker (the testbed's AMQP 0-9-1 client). */
export function rabbitmqClientEnv(run: TRunCreate): Record<string, string> {
  if (!brokerOfKind(run, "rabbitmq")) return {};
  return {
    TESTBED_BROKER: "rabbitmq",
    TESTBED_AMQP_URL: AMQP_URL,
    TESTBED_AMQP_QUEUE: AMQP_QUEUE,
    TESTBED_AMQP_PREFETCH: String(AMQP_PREFETCH),
  };
}

/** What a user's service gets to reach the broker: an AMQP 0-9-1 URL and the queue's name (the service declares it). */
export function rabbitmqServiceEnv(run: Pick<TRunCreate, "topology">): Record<string, string> {
  if (!brokerOfKind(run, "rabbitmq")) return {};
  return { AMQP_URL: AMQP_URL, AMQP_QUEUE };
}

/**
 * RabbitMQ 3.10 (Debian's), one node: the service replicas publish each event to a durable queue
 * (persistent messages, publisher confirms counted as they come) and the consumers work it off.
 * The image sizes its memory watermark from the container's limit.
 */
export const rabbitmq: ComponentModule = {
  kind: "rabbitmq",
  slot: "broker",
  images: (run) => (brokerOfKind(run, "rabbitmq") ? ["rabbitmq"] : []),
  roles: (run) => {
    const b = brokerOfKind(run, "rabbitmq");
    return b ? [{ role: RABBITMQ_ROLE, count: 1, incoming: true, path: "topology.broker", cpus: b.cpus, memoryMb: b.memoryMb }] : [];
  },
  presentation: {
    [RABBITMQ_ROLE]: { one: "broker", many: "brokers", name: "Broker (RabbitMQ)", column: 3, row: 1, color: "#f76707", label: "title" },
  },
  edges: [
    { from: SERVICE_ROLE, to: RABBITMQ_ROLE, kind: "async" },
    { from: RABBITMQ_ROLE, to: CONSUMER_ROLE, kind: "async" },
  ],
  clientEnv: rabbitmqClientEnv,
  serviceEnv: rabbitmqServiceEnv,
  form: { options: [{ path: "topology.broker.kind", value: RABBITMQ_BROKER.kind, label: RABBITMQ_BROKER.label }] },
  plan: ({ run, container }) => {
    const b = brokerOfKind(run, "rabbitmq");
    if (!b) return [];
    return [
      container({
        index: 0,
        role: RABBITMQ_ROLE,
        component: "rabbitmq",
        title: "the RabbitMQ broker",
        image: "rabbitmq",
        hostname: RABBITMQ_HOST,
        cpus: b.cpus,
        memoryMb: b.memoryMb,
        ports: [AMQP_PORT],
        tier: 0,
        ready: [
          { kind: "log", pattern: "Server startup complete" },
          { kind: "tcp", port: AMQP_PORT },
        ],
      }),
    ];
  },
};
