import { ENDPOINT_METHODS, ENDPOINT_PATHS } from "@scalelab/scenarios/k6";
import type { RunContext } from "./context";

const CONCURRENCY = 2;

/** A short burst through the balancer so the first measured second does not pay for cold connections. */
export async function warmup({ run, deps, report, signal }: RunContext, entryUrl: string): Promise<void> {
  const url = entryUrl + ENDPOINT_PATHS[run.workload.endpoint];
  const method = ENDPOINT_METHODS[run.workload.endpoint];
  const until = Date.now() + deps.timeouts.warmupMs;
  let requests = 0;
  let errors = 0;
  const loop = async () => {
    while (Date.now() < until) {
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
  const message = `warm-up: ${requests} requests in ${deps.timeouts.warmupMs / 1000} s, ${errors} errors`;
  await report.detail(message);
  await report.event(errors > 0 ? "warn" : "info", message);
}
