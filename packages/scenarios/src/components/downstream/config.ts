import { z } from "zod";
import { int, LIMITS, num, oneOf, strict } from "../../contract/fields";

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

export type TDownstream = z.infer<typeof ZDownstream>;
