import { ENDPOINT_METHODS, ENDPOINT_PATHS } from "@scalelab/scenarios/k6";
import type { RunContext } from "./context";

const CONCURRENCY = 2;
/**
 * Enough to open the balancer's and the replicas' connections, few enough that a fast endpoint
 * does not fill an async topology's broker with thousands of events before the load starts.
 */
const MAX_REQUESTS = 200;

/** A short burst through the balancer so the first measured second does not pay for cold connections. */
export async function warmup({ run, deps, report, signal }: RunContext, entryUrl: string): Promise<void> {
  const url = entryUrl + ENDPOINT_PATHS[run.workload.endpoint];
  const method = ENDPOINT_METHODS[run.workload.endpoint];
  const started = Date.now();
  const until = started + deps.timeouts.warmupMs;
  let requests = 0;
  let errors = 0;
  const loop = async () => {
    while (Date.now() < until && requests < MAX_REQUESTS) {
      signal.throwIfAborted();
      try {
        const res = await fetch(url, { method, signal: AbortSignal.any([signal, AbortSignal.timeout(run.workload.requestTimeoutMs)]) });
        await res.arrayBuffer();
        if (!res.ok) errors++;
      } catch {
        signal.throwIfAborted();
        errors++;
      }
      requests++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const message = `warm-up: ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, ${errors} errors`;
  await report.detail(message);
  await report.event(errors > 0 ? "warn" : "info", message);
}
