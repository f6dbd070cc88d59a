import type { RunPlan } from "@scalelab/scenarios/plan";
import type { PlannedContainer } from "@scalelab/scenarios/plan";
import { errorMessage } from "../log";
import type { StartedContainer } from "../provisioner/types";
import type { RunContext } from "./context";

export type Provisioned = { apps: StartedContainer[]; lb: StartedContainer };

export async function provision({ deps, report, signal }: RunContext, plan: RunPlan): Promise<Provisioned> {
  const { provisioner } = deps;
  const network = plan.network.name;
  const start = async (spec: PlannedContainer, what: string) => {
    try {
      return await provisioner.startContainer(spec, network);
    } catch (err) {
      throw new Error(`could not start ${what} (${spec.name}, image ${spec.image}): ${dockerMessage(err)}`);
    }
  };

  await provisioner.createNetwork(plan.network);
  signal.throwIfAborted();
  await report.detail(`starting ${plan.apps.length} replica(s)`);
  // allSettled: teardown lists the run's containers by label, so every create must have
  // finished (or failed) before a failure propagates, or a late one would outlive the run.
  const settled = await Promise.allSettled(plan.apps.map((spec) => start(spec, `replica ${spec.hostname}`)));
  const failed = settled.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  const apps = settled.map((r) => (r as PromiseFulfilledResult<StartedContainer>).value);
  signal.throwIfAborted();
  // nginx resolves its upstreams when it starts, so it comes after the replicas are on the network.
  await report.detail("starting the balancer");
  const lb = await start(plan.lb, "the balancer");
  return { apps, lb };
}

/** dockerode's message without its "(HTTP code 404) no such container -" prefix. */
export function dockerMessage(err: unknown): string {
  const json = (err as { json?: { message?: string } }).json;
  return (json?.message ?? errorMessage(err)).trim();
}
