import type { RunPlan } from "@scalelab/scenarios/plan";
import { errorMessage } from "../log";
import type { StartedContainer } from "../provisioner/types";
import { describeExit, sleep, type RunContext } from "./context";
import type { Provisioned } from "./provision";

export const HEALTH_PATH = "/health";
const POLL_MS = 200;

/**
 * Polls through the balancer until every replica has answered at least once (its host name in
 * X-Backend). A container that exits on the way fails the step with its exit code and output.
 */
export async function waitHealthy(ctx: RunContext, plan: RunPlan, started: Provisioned, lbUrl: string): Promise<void> {
  const { deps, report, signal } = ctx;
  const seen = new Set<string>();
  const deadline = Date.now() + deps.timeouts.healthyMs;
  const what = new Map<StartedContainer, string>([
    ...started.apps.map((c, i) => [c, `replica ${plan.backends[i]}`] as const),
    [started.lb, "the balancer"],
  ]);
  let lastError = "";
  let polls = 0;

  while (Date.now() < deadline) {
    if (polls++ % 5 === 0) await failIfExited(ctx, plan, what);
    try {
      const res = await fetch(lbUrl + HEALTH_PATH, { signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]) });
      await res.arrayBuffer();
      const backend = res.headers.get("x-backend");
      if (res.ok && backend) seen.add(backend);
      lastError = res.ok ? "" : `HTTP ${res.status}`;
    } catch (err) {
      signal.throwIfAborted();
      lastError = errorMessage(err);
    }
    if (plan.backends.every((b) => seen.has(b))) {
      await report.detail(`all ${plan.backends.length} replica(s) answer through the balancer`);
      return;
    }
    await report.detail(`${seen.size}/${plan.backends.length} replica(s) answering through the balancer`);
    await sleep(POLL_MS, signal);
  }

  await failIfExited(ctx, plan, what);
  const missing = plan.backends.filter((b) => !seen.has(b));
  const seconds = Math.round(deps.timeouts.healthyMs / 1000);
  throw new Error(
    seen.size === 0 && lastError
      ? `not healthy after ${seconds} s: the balancer did not answer (${lastError}); replicas never seen: ${missing.join(", ")}`
      : `not healthy after ${seconds} s: replicas never seen through the balancer: ${missing.join(", ")}`,
  );
}

async function failIfExited(ctx: RunContext, plan: RunPlan, what: Map<StartedContainer, string>): Promise<void> {
  for (const [c, label] of what) {
    const state = await ctx.deps.provisioner.inspect(c.id, plan.network.name);
    if (!state.running) throw new Error(await describeExit(ctx.deps, c.id, `${label} (${c.name})`, plan.network.name));
  }
}
