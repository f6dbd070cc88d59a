/**
 * nginx as a balancer kind: its `upstream` methods (`hash` keys on `$request_id`, `random` is
 * `random two least_conn`); `ip_hash` sends every request of one client to one replica.
 */
export const NGINX_ALGORITHMS = ["round_robin", "least_conn", "ip_hash", "hash", "random"] as const;
export type NginxAlgorithm = (typeof NGINX_ALGORITHMS)[number];

export const NGINX_BALANCER = {
  kind: "nginx",
  algorithms: NGINX_ALGORITHMS,
  defaultAlgorithm: "round_robin",
  sticky: ["ip_hash"],
} as const;
