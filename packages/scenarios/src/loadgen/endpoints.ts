import { TWorkload } from "../contract/workload";
import { BalancerKind } from "../components/balancer/config";
import { APP_PORT, LB_PORT } from "../names";

/** What each endpoint of the workload requests, whichever load generator sends it. */
export const ENDPOINT_PATHS: Record<TWorkload["endpoint"], string> = {
  hostname: "/hostname",
  cpu: "/cpu",
  products: "/products",
  activity: "/activity",
  key: "/key",
};

/** `activity` writes a row, so it is a POST; the others read. */
export const ENDPOINT_METHODS: Record<TWorkload["endpoint"], "GET" | "POST"> = {
  hostname: "GET",
  cpu: "GET",
  products: "GET",
  activity: "POST",
  key: "GET",
};

/**
 * Where the load goes, by network alias on the run network: the balancer, or without one the
 * service's shared alias (Docker's DNS answers it with every replica, in random order) on the
 * replicas' port (servicePort: a user's image's own).
 */
export const loadTarget = (kind: BalancerKind, port: number = APP_PORT): string =>
  kind === "none" ? `http://app:${port}` : `http://lb:${LB_PORT}`;
