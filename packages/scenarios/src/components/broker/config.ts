import { z } from "zod";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";
import { KAFKA_BROKER } from "../kafka/config";
import { RABBITMQ_BROKER } from "../rabbitmq/config";

/** The broker kinds, each from its own folder. */
export const BROKERS = [KAFKA_BROKER, RABBITMQ_BROKER] as const;
export type BrokerKind = (typeof BROKERS)[number]["kind"];
export const BROKER_KINDS = BROKERS.map((b) => b.kind) as unknown as readonly [BrokerKind, ...BrokerKind[]];

/** The message broker of an async topology: one node of the chosen kind. */
export const ZBroker = strict("broker", {
  kind: oneOf("broker.kind", BROKER_KINDS).default(BROKER_KINDS[0]),
  cpus: num("broker.cpus", LIMITS.cpus).optional(),
  memoryMb: int("broker.memoryMb", LIMITS.brokerMemoryMb).default(512),
});

export type TBroker = z.infer<typeof ZBroker>;
