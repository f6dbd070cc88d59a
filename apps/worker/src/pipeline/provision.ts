import { tiers, PlannedContainer, RunPlan } from "@scalelab/scenarios/plan";
import { errorMessage } from "../log";
import { hostPort, StartedContainer } from "../provisioner/types";
import { RunContext } from "./context";
import { dialer, waitReady } from "./probes";
import { backendAddresses, BackendNamer } from "./backends";

export type Provisioned = {
  /** Every container of the topology, in plan order. */
  containers: StartedContainer[];
  /** The balancer's address on the run network: the warm-up's target. */
  entryUrl: string;
};

/**
 * Creates the run network and starts the topology tier by tier, each tier once the one before
 * is ready (stores and brokers, then the service and its workers, then the balancer). The last
 * tier's readiness is left to `waitHealthy`, the pipeline's own step.
 */
export async function provision(
  ctx: RunContext,
  plan: RunPlan,
): Promise<{ started: Map<string, StartedContainer>; last: PlannedContainer[] }> {
  const { deps, report, signal } = ctx;
  const network = plan.network.name;
  await deps.provisioner.createNetwork(plan.network);
  const started = new Map<string, StartedContainer>();
  const all = tiers(plan);
  for (const [i, tier] of all.entries()) {
    signal.throwIfAborted();
    await report.detail(`starting ${describeTier(tier)}`);
    await startTier(ctx, network, tier, started);
    if (i < all.length - 1) await waitTier(ctx, plan, tier, started);
  }
  return { started, last: all.at(-1) ?? [] };
}

/** Waits for the last tier (the balancer, seeing every replica through it); returns where to send load. */
export async function waitHealthy(
  ctx: RunContext,
  plan: RunPlan,
  tier: PlannedContainer[],
  started: Map<string, StartedContainer>,
): Promise<Provisioned> {
  await waitTier(ctx, plan, tier, started);
  const entry = plan.containers.find((c) => c.role === plan.entry.role);
  const entryStarted = entry && started.get(entry.name);
  if (!entryStarted) throw new Error(`the plan has no ${plan.entry.role} container to send the load to`);
  const entryAddress = await ctx.deps.provisioner.dialAddress(entryStarted.id, plan.network.name, plan.entry.port);
  return { containers: [...started.values()], entryUrl: `http://${hostPort(entryAddress)}` };
}

async function waitTier(ctx: RunContext, plan: RunPlan, tier: PlannedContainer[], started: Map<string, StartedContainer>) {
  const network = plan.network.name;
  const targets = await Promise.all(
    tier.map(async (spec) => {
      const s = started.get(spec.name)!;
      return { spec, started: s, dial: dialer(ctx, s.id, network) };
    }),
  );
  // Through the balancer in front of a user's image, its header's addresses name the replicas.
  const named = tier.some((c) => c.ready.some((p) => p.kind === "backends" && p.header));
  const namer = named ? new BackendNamer("balancer", () => backendAddresses(ctx, plan, [...started.values()])) : undefined;
  await waitReady(ctx, network, targets, namer);
}

async function startTier(ctx: RunContext, network: string, tier: PlannedContainer[], started: Map<string, StartedContainer>) {
  // allSettled: teardown lists the run's containers by label, so every create must have
  // finished (or failed) before a failure propagates, or a late one would outlive the run.
  const settled = await Promise.allSettled(
    tier.map(async (spec) => {
      try {
        started.set(spec.name, await ctx.deps.provisioner.startContainer(spec, network));
      } catch (err) {
        throw new Error(`could not start ${spec.title} (${spec.name}, image ${spec.image}): ${dockerMessage(err)}`);
      }
    }),
  );
  const failed = settled.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

function describeTier(tier: PlannedContainer[]): string {
  const counts = new Map<string, number>();
  for (const c of tier) counts.set(c.role, (counts.get(c.role) ?? 0) + 1);
  return [...counts].map(([role, n]) => `${n} ${role}`).join(", ");
}

/** dockerode's message without its "(HTTP code 404) no such container -" prefix. */
export function dockerMessage(err: unknown): string {
  const json = (err as { json?: { message?: string } }).json;
  return (json?.message ?? errorMessage(err)).trim();
}
