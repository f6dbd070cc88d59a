import type { THostFacts, TRunCreate } from "./run";

export type FieldIssue = { path: string; message: string };

const MB = 1024 * 1024;

/**
 * Bounds that depend on the Docker host the run will execute on. Returns one issue per
 * offending field, naming the field and the allowed range; an empty list means the run fits.
 */
export function validateAgainstHost(run: TRunCreate, host: Pick<THostFacts, "cpus" | "memoryBytes">): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { service, balancer, downstream, broker, storage } = run.topology;
  const cpuRange = `0.05 and ${host.cpus} (this host has ${host.cpus} CPUs)`;
  const cpuLimits: [string, string, number | undefined][] = [
    ["topology.service.cpus", "service.cpus", service.cpus],
    ["topology.balancer.cpus", "balancer.cpus", balancer.cpus],
    ["topology.downstream.cpus", "downstream.cpus", downstream.mode === "none" ? undefined : downstream.cpus],
    ["topology.broker.cpus", "broker.cpus", broker?.cpus],
    ["topology.storage.cpus", "storage.cpus", storage.kind === "none" ? undefined : storage.cpus],
  ];
  for (const [path, field, cpus] of cpuLimits) {
    if (cpus !== undefined && cpus > host.cpus) issues.push({ path, message: `${field} must be between ${cpuRange}` });
  }
  if (run.workload.loadgenCpus > host.cpus) {
    issues.push({
      path: "workload.loadgenCpus",
      message: `workload.loadgenCpus must be between 0.1 and ${host.cpus} (this host has ${host.cpus} CPUs)`,
    });
  }

  const hostMb = Math.floor(host.memoryBytes / MB);
  // Leave a quarter of the host for the control plane, the balancer and the load generator.
  const budgetMb = Math.floor(hostMb * 0.75);
  const others =
    (downstream.mode === "none" ? 0 : downstream.replicas * downstream.memoryMb) +
    (downstream.mode === "async" ? (broker?.memoryMb ?? 512) : 0) +
    (storage.kind === "none" ? 0 : storage.memoryMb);
  const perReplicaMax = Math.max(32, Math.floor((budgetMb - others) / service.replicas));
  if (service.memoryMb * service.replicas + others > budgetMb) {
    const what = others > 0 ? ` (the other components take ${others} MB)` : "";
    issues.push({
      path: "topology.service.memoryMb",
      message: `service.memoryMb must be between 32 and ${perReplicaMax} for ${service.replicas} replica(s)${what} (this host has ${hostMb} MB; the run's containers may use at most ${budgetMb} MB together)`,
    });
  }
  return issues;
}
