import { runLabels } from "@scalelab/scenarios/plan";
import { Provisioner } from "../provisioner/types";

/** Removes every container and network of the run, found by label, so it works whatever state the run reached. */
export function teardown(provisioner: Provisioner, runId: string): Promise<{ containers: number; networks: number }> {
  return provisioner.removeByLabel(runLabels(runId));
}
