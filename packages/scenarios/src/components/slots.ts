import { ZBalancer } from "./balancer/config";
import { ZBroker } from "./broker/config";
import { ZCache } from "./cache/config";
import { ZDownstream } from "./downstream/config";
import { ZService } from "./service/config";
import { ZStorage } from "./storage/config";

/**
 * The slots of a topology, the contract's `topology` object (../contract/topology.ts): each slot's
 * schema lives in its folder, and its kinds in theirs. A slot is a public field name: add, never rename.
 */
export const TOPOLOGY_SLOTS = {
  balancer: ZBalancer.prefault({}),
  service: ZService,
  downstream: ZDownstream.prefault({}),
  broker: ZBroker.optional(),
  storage: ZStorage.prefault({}),
  /** A cache beside a user's image (the testbed's key endpoint and experiment 7's servers bring their own). */
  cache: ZCache.optional(),
};
