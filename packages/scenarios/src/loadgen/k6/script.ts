import { TRequest, TWeightedRequest, TWorkload } from "../../contract/workload";
import { GRPC_PORT } from "../../names";
import {
  BACKEND_HEADER,
  BackendSource,
  BALANCER_KEY,
  GRPC_CODES,
  K6_REQUEST_TIMEOUT_CODE,
  NO_ANSWER_KEY,
  UNKNOWN_KEY,
  UPSTREAM_HEADER,
} from "../../contract/backends";
import { ENDPOINT_METHODS, ENDPOINT_PATHS, loadTarget } from "../endpoints";
import { GRPC_BACKEND_METADATA, GRPC_METHOD, HOSTNAME_PROTO } from "../../components/service/grpc";
import { LIMITS } from "../../contract/fields";

export const K6_DASHBOARD_PORT = 5665;
export const BACKEND_HITS_METRIC = "backend_hits";
export const BACKEND_TAG = "backend";
/**
 * Per-backend truth (./backends.ts), per request: every request under the backend it is attributed
 * to (tag `backend`), each failed one under `<kind>/<backend>` (tag `backend_error`: the dashboard
 * makes sub-metrics of one tag at a time, and a kind never holds a "/"), and the latency of each
 * response under its backend (a Trend, so the dashboard gives avg, max and p95 per backend).
 */
export const BACKEND_REQS_METRIC = "backend_reqs";
export const BACKEND_ERRORS_METRIC = "backend_errors";
export const BACKEND_ERROR_TAG = "backend_error";
export const BACKEND_LATENCY_METRIC = "backend_latency";
export const BACKEND_ERROR_SEPARATOR = "/";
/** Where the gRPC script finds the service's definition (written beside the script; k6 wants a folder and a name). */
const K6_PROTO_DIR = "/scalelab";
const K6_PROTO_FILE = "hostname.proto";
export const K6_PROTO_PATH = `${K6_PROTO_DIR}/${K6_PROTO_FILE}`;

/**
 * The metrics a k6 run's figures come from. HTTP has k6's own; k6's gRPC client times each call
 * (grpc_req_duration) but counts neither calls nor failures, so the gRPC script counts them itself.
 */
export const K6_METRICS = {
  http: { requests: "http_reqs", failed: "http_req_failed", duration: "http_req_duration" },
  grpc: { requests: "grpc_reqs", failed: "grpc_req_failed", duration: "grpc_req_duration" },
} as const satisfies Record<TWorkload["protocol"], { requests: string; failed: string; duration: string }>;

/** Environment of the k6 container: web dashboard on every interface, 1 s buckets, per-backend sub-metrics. */
export const K6_ENV: Readonly<Record<string, string>> = {
  K6_WEB_DASHBOARD: "true",
  K6_WEB_DASHBOARD_HOST: "0.0.0.0",
  K6_WEB_DASHBOARD_PORT: String(K6_DASHBOARD_PORT),
  K6_WEB_DASHBOARD_PERIOD: "1s",
  K6_WEB_DASHBOARD_TAGS: `${BACKEND_TAG},${BACKEND_ERROR_TAG}`,
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
 * The k6 script: one of the testbed's endpoints, the user's request or the user's weighted mix.
 * Everything variable is a validated number, comes from a fixed map or is the user's validated
 * request, and is written with JSON.stringify, so no text reaches the script as code.
 */
export function renderK6Script(w: TWorkload, target: string = loadTarget("nginx"), source: BackendSource = "header"): string {
  if (!/^http:\/\/(lb|app):\d{1,5}$/.test(target)) throw new Error(`invalid load target ${JSON.stringify(target)}`);
  if (w.script !== undefined) throw new Error("workload.script runs in the lab's wrapper (renderK6Wrapper), not in the lab's script");
  const options = { discardResponseBodies: true, scenarios: { load: k6Scenario(w) } };
  return w.protocol === "grpc" ? grpcScript(w, options, target) : httpScript(w, options, target, source);
}

/**
 * The per-backend counting both scripts share: the metrics, the classification of ./backends.ts
 * (httpErrorKind, grpcErrorKind; the tests run this text against them), who answered an HTTP
 * response (`httpBackend`, `httpWho`, from the run's BackendSource) and `count`. Constants only.
 */
export function k6BackendCode(source: BackendSource = "header"): string {
  const str = JSON.stringify;
  return `const backendHits = new Counter(${str(BACKEND_HITS_METRIC)});
const backendReqs = new Counter(${str(BACKEND_REQS_METRIC)});
const backendErrors = new Counter(${str(BACKEND_ERRORS_METRIC)});
const backendLatency = new Trend(${str(BACKEND_LATENCY_METRIC)}, true);
const BALANCER = ${str(BALANCER_KEY)};
const NO_ANSWER = ${str(NO_ANSWER_KEY)};
const UNKNOWN = ${str(UNKNOWN_KEY)};
const SOURCE = ${str(source)};

// What names the replica that answered an HTTP response, "" when nothing does: the replica's own
// header (the lab's servers), the balancer's header (the replica's address; absent when the
// balancer answered itself), or the address the connection reached (no balancer; IPv6 in brackets).
// The worker maps addresses to replica names.
function httpBackend(res) {
  if (res.status === 0) return "";
  if (SOURCE === "header") return String(res.headers[${str(BACKEND_HEADER)}] || "");
  if (SOURCE === "balancer") return String(res.headers[${str(UPSTREAM_HEADER)}] || "");
  if (SOURCE === "address" && res.remote_ip) {
    const ip = String(res.remote_ip);
    return (ip.includes(":") ? "[" + ip + "]" : ip) + ":" + res.remote_port;
  }
  return "";
}

// Who answered: the named replica, else the balancer itself (a response without a name), or
// nobody said (no balancer, no name), else nobody (no response).
function httpWho(res, backend) {
  if (backend) return backend;
  if (res.status === 0) return NO_ANSWER;
  return SOURCE === "header" || SOURCE === "balancer" ? BALANCER : UNKNOWN;
}

// Status 0: no response (k6's error_code ${K6_REQUEST_TIMEOUT_CODE} is its request timeout); "" when the request did not fail.
function httpKind(status, errorCode) {
  if (status === 0) return errorCode === ${K6_REQUEST_TIMEOUT_CODE} ? "timeout" : "conn";
  if (status === 502 || status === 503 || status === 504) return String(status);
  return status >= 400 ? "other" : "";
}

// A gRPC code (k6 gives res.status as an object: Number() makes it the code); undefined when the
// call threw (no connection). "" when the call did not fail.
function grpcKind(status, message, answeredBy) {
  if (status === undefined) return "conn";
  const code = Number(status);
  if (code === ${GRPC_CODES.OK}) return "";
  if (code === ${GRPC_CODES.DeadlineExceeded}) return "timeout";
  if (code === ${GRPC_CODES.Unavailable}) {
    const named = /\\b(50[234])\\b/.exec(message);
    return named ? named[1] : answeredBy ? "503" : "conn";
  }
  return "other";
}

function count(backend, kind, ms) {
  backendReqs.add(1, { ${BACKEND_TAG}: backend });
  if (kind) backendErrors.add(1, { ${BACKEND_ERROR_TAG}: kind + ${str(BACKEND_ERROR_SEPARATOR)} + backend });
  if (ms !== undefined) backendLatency.add(ms, { ${BACKEND_TAG}: backend });
}

// One HTTP response, counted under whoever answered it.
function countHttp(res) {
  const backend = httpBackend(res);
  if (backend) backendHits.add(1, { ${BACKEND_TAG}: backend });
  const who = httpWho(res, backend);
  count(who, httpKind(res.status, res.error_code), res.status !== 0 ? res.timings.duration : undefined);
}`;
}

/** What the HTTP script sends: one of the testbed's endpoints, the user's request, or a pick from the user's mix. */
type HttpRequestSpec = { method: string; url: string; body: string | null; params: { timeout: string; headers?: Record<string, string> } };

function requestSpec(r: TRequest | TWeightedRequest, target: string, timeout: string): HttpRequestSpec {
  return {
    method: r.method,
    url: target + r.path,
    body: r.body ?? null,
    params: { timeout, ...(r.headers && Object.keys(r.headers).length > 0 && { headers: r.headers }) },
  };
}

/**
 * The mix's entries and their cumulative weights: an iteration draws one number in [0, total) and
 * sends the first entry whose cumulative weight is above it, so each is sent weight / total of the time.
 */
export function requestMix(
  requests: readonly TWeightedRequest[],
  target: string,
  timeout: string,
): { requests: HttpRequestSpec[]; cumulative: number[] } {
  let sum = 0;
  return {
    requests: requests.map((r) => requestSpec(r, target, timeout)),
    cumulative: requests.map((r) => (sum += r.weight)),
  };
}

/** The statement that sends one request into `res`; every value is JSON.stringify output. */
function sendCode(w: TWorkload, target: string): { setup: string; send: string } {
  const str = JSON.stringify;
  const timeout = `${w.requestTimeoutMs}ms`;
  if (w.requests !== undefined) {
    const mix = requestMix(w.requests, target, timeout);
    return {
      setup: `const REQUESTS = ${str(mix.requests, null, 2)};
const CUMULATIVE = ${str(mix.cumulative)};
const TOTAL = CUMULATIVE[CUMULATIVE.length - 1];

// One draw per iteration: entry i with probability weight[i] / TOTAL.
function pick() {
  const x = Math.random() * TOTAL;
  for (let i = 0; i < CUMULATIVE.length; i++) if (x < CUMULATIVE[i]) return REQUESTS[i];
  return REQUESTS[REQUESTS.length - 1];
}
`,
      send: `const req = pick();
  const res = http.request(req.method, req.url, req.body, req.params);`,
    };
  }
  if (w.request !== undefined) {
    const r = requestSpec(w.request, target, timeout);
    return { setup: "", send: `const res = http.request(${str(r.method)}, ${str(r.url)}, ${str(r.body)}, ${str(r.params)});` };
  }
  const url = target + ENDPOINT_PATHS[w.endpoint];
  return { setup: "", send: `const res = http.request(${str(ENDPOINT_METHODS[w.endpoint])}, ${str(url)}, null, ${str({ timeout })});` };
}

function httpScript(w: TWorkload, options: object, target: string, source: BackendSource): string {
  const { setup, send } = sendCode(w, target);
  return `import { sleep } from "k6";
import http from "k6/http";
import { Counter, Trend } from "k6/metrics";

${k6BackendCode(source)}

export const options = ${JSON.stringify(options, null, 2)};
${
  setup
    ? `
${setup}`
    : ""
}
export default function () {
  ${send}
  countHttp(res);
}
${teardown}`;
}

/**
 * gRPC: one connection per VU (opened on its first call, reopened after a failure), the unary
 * Hostname/Get call, the replica's name from the x-backend response metadata. Without a balancer
 * the address is the service's shared alias on the gRPC port.
 */
function grpcScript(w: TWorkload, options: object, target: string): string {
  const address = target.startsWith("http://app:") ? `app:${GRPC_PORT}` : target.slice("http://".length);
  const m = K6_METRICS.grpc;
  const timeout = JSON.stringify(`${w.requestTimeoutMs}ms`);
  const md = JSON.stringify(GRPC_BACKEND_METADATA);
  return `import { sleep } from "k6";
import grpc from "k6/net/grpc";
import { Counter, Rate, Trend } from "k6/metrics";

const client = new grpc.Client();
client.load([${JSON.stringify(K6_PROTO_DIR)}], ${JSON.stringify(K6_PROTO_FILE)});

const calls = new Counter(${JSON.stringify(m.requests)});
const failed = new Rate(${JSON.stringify(m.failed)});
${k6BackendCode()}

export const options = ${JSON.stringify(options, null, 2)};

let connected = false;

function metadata(md) {
  const v = md && md[${md}];
  return v ? String(Array.isArray(v) ? v[0] : v) : "";
}

export default function () {
  let res;
  let started;
  try {
    if (!connected) {
      client.connect(${JSON.stringify(address)}, { plaintext: true, timeout: ${timeout} });
      connected = true;
    }
    // k6 gives a gRPC call no timings: the call's wall time, to the millisecond.
    started = Date.now();
    res = client.invoke(${JSON.stringify(GRPC_METHOD)}, {}, { timeout: ${timeout} });
  } catch (e) {
    // Refused or reset before an answer: a failed call; the next one reconnects.
    calls.add(1);
    failed.add(true);
    count(NO_ANSWER, grpcKind(undefined, "", ""));
    client.close();
    connected = false;
    return;
  }
  const ms = Date.now() - started;
  calls.add(1);
  failed.add(res.status !== grpc.StatusOK);
  // A failed call may carry the replica's metadata in its trailers only.
  const backend = metadata(res.headers) || metadata(res.trailers);
  if (backend) backendHits.add(1, { ${BACKEND_TAG}: backend });
  const kind = grpcKind(res.status, res.error && res.error.message ? String(res.error.message) : "", backend);
  const who = backend || (kind === "timeout" || kind === "conn" ? NO_ANSWER : BALANCER);
  count(who, kind, who === NO_ANSWER ? undefined : ms);
}
${teardown}`;
}

const teardown = `
export function teardown() {
  sleep(${END_TAIL_SECONDS});
}
`;

/** The files of a k6 container besides its script: the gRPC service's definition. */
export const k6ExtraFiles = (w: TWorkload) => (w.protocol === "grpc" ? [{ path: K6_PROTO_PATH, content: HOSTNAME_PROTO }] : []);
