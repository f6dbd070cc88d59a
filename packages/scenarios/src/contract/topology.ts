import { z } from "zod";
import { TOPOLOGY_SLOTS } from "../components/slots";
import { ZPlacement } from "./engines";
import { strict } from "./fields";

/**
 * A topology is a set of components in named slots: the balancer, the service, what the service
 * hands its work to (downstream, through a broker when async) and the store behind it. Each slot's
 * schema and its kinds live in the components' folders (../components/slots.ts lists them); rules
 * across components are the components' own, checked in ZRunCreate.
 */
export const ZTopology = strict("topology", {
  ...TOPOLOGY_SLOTS,
  /** Where the containers go on the engine's nodes (issue 18); not a slot. */
  placement: ZPlacement.optional(),
});
export type TTopology = z.infer<typeof ZTopology>;
export type TTopologyInput = z.input<typeof ZTopology>;
