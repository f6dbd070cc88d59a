import type { THostFacts, TRunCreate } from "./schemas";

export type FieldIssue = { path: string; message: string };

const MB = 1024 * 1024;

/**
 * Bounds that depend on the Docker host the run will execute on. Returns one issue per
 * offending field, naming the field and the allowed range; an empty list means the run fits.
 */
export function validateAgainstHost(run: TRunCreate, host: Pick<THostFacts, "cpus" | "memoryBytes">): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { service, balancer } = run.topology;
  const cpuRange = `0.05 and ${host.cpus} (this host has ${host.cpus} CPUs)`;
  if (service.cpus !== undefined && service.cpus > host.cpus) {
    issues.push({ path: "topology.service.cpus", message: `service.cpus must be between ${cpuRange}` });
  }
  if (balancer.cpus !== undefined && balancer.cpus > host.cpus) {
    issues.push({ path: "topology.balancer.cpus", message: `balancer.cpus must be between ${cpuRange}` });
  }
  if (run.workload.loadgenCpus > host.cpus) {
    issues.push({ path: "workload.loadgenCpus", message: `workload.loadgenCpus must be between 0.1 and ${host.cpus} (this host has ${host.cpus} CPUs)` });
  }
  const hostMb = Math.floor(host.memoryBytes / MB);
  // Leave a quarter of the host for the control plane, the balancer and the load generator.
  const budgetMb = Math.floor(hostMb * 0.75);
  const perReplicaMax = Math.max(32, Math.floor(budgetMb / service.replicas));
  if (service.memoryMb * service.replicas > budgetMb) {
    issues.push({
      path: "topology.service.memoryMb",
      message: `service.memoryMb must be between 32 and ${perReplicaMax} for ${service.replicas} replica(s) (this host has ${hostMb} MB; replicas may use at most ${budgetMb} MB together)`,
    });
  }
  return issues;
}
