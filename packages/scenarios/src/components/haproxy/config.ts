/**
 * HAProxy as a balancer kind: its `balance` algorithms by their own names; `source` and `first`
 * send every request of one client to one replica.
 */
export const HAPROXY_ALGORITHMS = ["roundrobin", "leastconn", "source", "random", "first"] as const;
export type HaproxyAlgorithm = (typeof HAPROXY_ALGORITHMS)[number];

export const HAPROXY_BALANCER = {
  kind: "haproxy",
  algorithms: HAPROXY_ALGORITHMS,
  defaultAlgorithm: "roundrobin",
  sticky: ["source", "first"],
} as const;
