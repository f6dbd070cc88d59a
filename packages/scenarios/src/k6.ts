import type { BalancerKind } from "./components/balancer";
import { APP_PORT, LB_PORT } from "./nginx";
import { LIMITS, type TWorkload } from "./schemas";

export const ENDPOINT_PATHS: Record<TWorkload["endpoint"], string> = {
  hostname: "/hostname",
  cpu: "/cpu",
  products: "/products",
  activity: "/activity",
};

/** `activity` writes a row, so it is a POST; the others read. */
export const ENDPOINT_METHODS: Record<TWorkload["endpoint"], "GET" | "POST"> = {
  hostname: "GET",
  cpu: "GET",
  products: "GET",
  activity: "POST",
};

/**
 * Where the load goes, by network alias on the run network: the balancer, or without one the
 * service's shared alias (Docker's DNS answers it with every replica, in random order).
 */
export const loadTarget = (kind: BalancerKind): string => (kind === "none" ? `http://app:${APP_PORT}` : `http://lb:${LB_PORT}`);
export const K6_DASHBOARD_PORT = 5665;
export const BACKEND_HITS_METRIC = "backend_hits";
export const BACKEND_TAG = "backend";

/** Environment of the k6 container: web dashboard on every interface, 1 s buckets, per-backend sub-metrics. */
export const K6_ENV: Readonly<Record<string, string>> = {
  K6_WEB_DASHBOARD: "true",
  K6_WEB_DASHBOARD_HOST: "0.0.0.0",
  K6_WEB_DASHBOARD_PORT: String(K6_DASHBOARD_PORT),
  K6_WEB_DASHBOARD_PERIOD: "1s",
  K6_WEB_DASHBOARD_TAGS: BACKEND_TAG,
  K6_NO_USAGE_REPORT: "true",
};

type Scenario =
  | { executor: "constant-vus"; vus: number; duration: string; gracefulStop: string }
  | {
      executor: "constant-arrival-rate";
      rate: number;
      timeUnit: "1s";
      duration: string;
      preAllocatedVUs: number;
      maxVUs: number;
      gracefulStop: string;
    };

/** VUs the open model may use when the workload does not say. */
export function defaultMaxVus(arrivalRate: number): number {
  return Math.min(LIMITS.maxVus.max, Math.max(10, arrivalRate));
}

/** Requests in flight at the end may finish (or time out) instead of being counted as interrupted. */
export const gracefulStopSeconds = (w: TWorkload): number => Math.ceil(w.requestTimeoutMs / 1000) + 1;

export function k6Scenario(w: TWorkload): Scenario {
  const duration = `${w.durationSeconds}s`;
  const gracefulStop = `${gracefulStopSeconds(w)}s`;
  if (w.arrivalRate !== undefined) {
    const maxVUs = w.maxVus ?? defaultMaxVus(w.arrivalRate);
    // Enough VUs for ~100 ms of latency up front; k6 adds more (up to maxVUs) when responses slow down.
    const preAllocatedVUs = Math.min(maxVUs, Math.max(5, Math.ceil(w.arrivalRate / 10)));
    return { executor: "constant-arrival-rate", rate: w.arrivalRate, timeUnit: "1s", duration, preAllocatedVUs, maxVUs, gracefulStop };
  }
  if (w.vus === undefined) throw new Error("workload needs vus (closed model) or arrivalRate (open model)");
  return { executor: "constant-vus", vus: w.vus, duration, gracefulStop };
}

/**
 * The dashboard skips the snapshot of a period its test stops in, and the load ends exactly on a
 * period boundary: an idle teardown keeps the test alive past it, so the last second gets its bucket.
 */
export const END_TAIL_SECONDS = 0.5;

/**
 * The k6 script. Everything variable is a validated number or comes from a fixed map and is
 * written with JSON.stringify, so no user text reaches the script.
 */
export function renderK6Script(w: TWorkload, target: string = loadTarget("nginx")): string {
  const options = { discardResponseBodies: true, scenarios: { load: k6Scenario(w) } };
  if (!/^http:\/\/(lb|app):\d{1,5}$/.test(target)) throw new Error(`invalid load target ${JSON.stringify(target)}`);
  const url = target + ENDPOINT_PATHS[w.endpoint];
  const params = { timeout: `${w.requestTimeoutMs}ms` };
  return `import { sleep } from "k6";
import http from "k6/http";
import { Counter } from "k6/metrics";

const backendHits = new Counter(${JSON.stringify(BACKEND_HITS_METRIC)});

export const options = ${JSON.stringify(options, null, 2)};

export default function () {
  const res = http.request(${JSON.stringify(ENDPOINT_METHODS[w.endpoint])}, ${JSON.stringify(url)}, null, ${JSON.stringify(params)});
  const backend = res.headers["X-Backend"];
  if (backend) backendHits.add(1, { ${BACKEND_TAG}: String(backend) });
}

export function teardown() {
  sleep(${END_TAIL_SECONDS});
}
`;
}
