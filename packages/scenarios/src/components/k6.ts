import { K6_ENV, loadTarget, renderK6Script } from "../k6";
import type { ComponentModule, PlanContext, PlannedContainer } from "./types";

export const LOADGEN_ROLE = "loadgen";
export const K6_SCRIPT_PATH = "/scalelab/load.js";

/** k6 on the run network, aimed at the balancer (or the service's shared alias without one); started by the load step, not with the topology. */
export function planK6({ run, container }: PlanContext): PlannedContainer {
  return container({
    index: 0,
    role: LOADGEN_ROLE,
    component: "k6",
    title: "k6",
    image: "k6",
    hostname: LOADGEN_ROLE,
    env: { ...K6_ENV },
    cmd: ["run", "--no-color", "--quiet", K6_SCRIPT_PATH],
    cpus: run.workload.loadgenCpus,
    files: [{ path: K6_SCRIPT_PATH, content: renderK6Script(run.workload, loadTarget(run.topology.balancer.kind)) }],
    tier: 3,
    ready: [],
  });
}

export const k6: ComponentModule = {
  kind: "k6",
  images: () => ["k6"],
  plan: () => [],
};
