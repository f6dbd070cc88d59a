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

/** One request as the warm-up sends it. */
export type WarmupRequest = { method: string; path: string; headers: Record<string, string>; body?: string };

/**
 * What the warm-up sends: the user's request, the mix's first entry, GET on the service's health
 * path for a script (its requests are known only to k6), else the endpoint's request.
 */
export function warmupRequest(w: Pick<TWorkload, "endpoint" | "request" | "requests" | "script">, healthPath: string): WarmupRequest {
  const r = w.script !== undefined ? undefined : (w.requests?.[0] ?? w.request);
  if (r) return { method: r.method, path: r.path, headers: { ...r.headers }, ...(r.body !== undefined && { body: r.body }) };
  if (w.script !== undefined) return { method: "GET", path: healthPath, headers: {} };
  return { method: ENDPOINT_METHODS[w.endpoint], path: ENDPOINT_PATHS[w.endpoint], headers: {} };
}
