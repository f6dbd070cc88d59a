import { Agent, request } from "node:http";
import { GRPC_METHOD } from "@scalelab/scenarios/components";
import { warmupRequest, WarmupRequest } from "@scalelab/scenarios/loadgen";
import { serviceHealthPath, TRunCreate } from "@scalelab/scenarios/contract";
import { RunContext } from "./context";
import { grpcSession, grpcUnary } from "./grpc-call";

const CONCURRENCY = 2;
/**
 * Enough to open the balancer's and the replicas' connections, few enough that a fast endpoint
 * does not fill an async topology's broker with thousands of events before the load starts.
 */
const MAX_REQUESTS = 200;

/** Sends one warm-up request; resolves whether it succeeded. */
type Client = { send: (signal: AbortSignal) => Promise<boolean>; close: () => void };

/**
 * HTTP: one kept-alive connection per loop, as a client's pool would hold; node:http costs the
 * worker about a quarter of fetch's CPU per request, so the burst is over sooner. gRPC: one
 * HTTP/2 session, the calls multiplexed on it, as k6's gRPC client holds one per VU.
 */
function client(run: TRunCreate, entryUrl: string): Client {
  if (run.workload.protocol === "grpc") {
    const session = grpcSession(entryUrl);
    session.on("error", () => undefined); // a failed call reports it; the session's own error must not crash the worker
    return { send: async (signal) => (await grpcUnary(session, GRPC_METHOD, signal)) === 0, close: () => session.destroy() };
  }
  const req = warmupRequest(run.workload, serviceHealthPath(run.topology.service));
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  return {
    send: async (signal) => {
      const status = await send(entryUrl, req, agent, signal);
      return status >= 200 && status <= 299;
    },
    close: () => agent.destroy(),
  };
}

/** A short burst through the balancer so the first measured second does not pay for cold connections. */
export async function warmup({ run, deps, report, signal }: RunContext, entryUrl: string): Promise<void> {
  const started = Date.now();
  const until = started + deps.timeouts.warmupMs;
  let requests = 0;
  let errors = 0;
  const warm = client(run, entryUrl);
  const loop = async () => {
    while (Date.now() < until && requests < MAX_REQUESTS) {
      signal.throwIfAborted();
      // Counted when sent, so the loops together send at most MAX_REQUESTS.
      requests++;
      try {
        if (!(await warm.send(AbortSignal.any([signal, AbortSignal.timeout(run.workload.requestTimeoutMs)])))) errors++;
      } catch {
        signal.throwIfAborted();
        errors++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  } finally {
    warm.close();
  }
  const message = `warm-up: ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, ${errors} errors`;
  await report.detail(message);
  await report.event(errors > 0 ? "warn" : "info", message);
}

/** One request (the template's headers and body, or none); resolves with the status once the answer has been read. */
function send(entryUrl: string, r: WarmupRequest, agent: Agent, signal: AbortSignal): Promise<number> {
  const body = r.body === undefined ? undefined : Buffer.from(r.body, "utf8");
  const headers = { ...r.headers, ...(r.method !== "GET" && r.method !== "HEAD" && { "content-length": String(body?.length ?? 0) }) };
  return new Promise((resolve, reject) => {
    const req = request(entryUrl + r.path, { method: r.method, agent, signal, headers }, (res) => {
      res.on("error", reject);
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.resume();
    });
    req.on("error", reject);
    req.end(body);
  });
}
