import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { LABELS, NETNS_ROLE } from "../../names";
import { TFault, TFaultTarget } from "../../contract/faults";
import { dialedPorts } from "../ports";
import { PlannedContainer } from "../types";

/**
 * The network holder of a container that a `stop`, `kill` or `restart` fault targets, and only
 * then: a container that does nothing (`sleep infinity`) and owns the target's network namespace,
 * its address and its names, while the target joins it (`--network container:<holder>`, as a
 * Kubernetes pod's containers share its pause container's).
 *
 * Why: a stopped Docker container loses its address, and a client's connect to that address is
 * not refused but hangs until the neighbour lookup fails (about 3 s here), then fails with "no
 * route to host"; nginx only marks the server failed after that, so every request it sends there
 * in those seconds waits or fails (measured). A server whose process stopped answers a connect
 * at once with a refusal, and that is what experiment 6's balancer saw ("only requests in flight
 * on a stopped server got 502"). With the holder the address stays up while the target is stopped,
 * so a connect to it is refused at once, and `start` brings the process back on the same address
 * and names. The target keeps its host name (Docker gives a joined container its owner's).
 * `pause` needs no holder (a paused container keeps its address and its kernel still accepts
 * connections), nor do network faults.
 */

const TAKES_DOWN = new Set(["stop", "kill", "restart"]);

/** The distinct targets of the run's stop, kill and restart faults. */
export function netnsTargets(run: { faults: readonly Pick<TFault, "action" | "target">[] }): TFaultTarget[] {
  const seen = new Map<string, TFaultTarget>();
  for (const f of run.faults) {
    const key = `${f.target.role}-${f.target.index}`;
    if (TAKES_DOWN.has(f.action) && !seen.has(key)) seen.set(key, { role: f.target.role, index: f.target.index });
  }
  return [...seen.values()];
}

function holderImage(c: PlannedContainer, labImage: string | undefined): string {
  if (!labImage) throw new Error(`${c.title} runs a user's image: its network holder needs a lab image`);
  return labImage;
}

/**
 * Gives each target of a stop, kill or restart fault a network holder, started just before it
 * (the holder takes the target's host name and aliases, and its container name, which a
 * network-fault proxy in front of the target dials); the target joins the holder's network.
 */
export function planNetnsHolders(
  run: Pick<TRunCreate, "faults">,
  containers: readonly PlannedContainer[],
  /** A lab image with coreutils' sleep, for a target that runs a user's image (which may have no sleep, and is not the lab's to run as a holder). */
  labImage?: string,
): PlannedContainer[] {
  const out = [...containers];
  for (const target of netnsTargets(run)) {
    const key = `${target.role}-${target.index}`;
    const at = out.findIndex((c) => c.role === target.role && c.name.endsWith(`-${key}`));
    const c = out[at];
    if (!c) throw new Error(`a fault targets ${key}, which the plan does not have`);
    const holder: PlannedContainer = {
      name: `${c.name.slice(0, -key.length - 1)}-${NETNS_ROLE}-${key}`,
      role: NETNS_ROLE,
      component: "netns",
      title: `the network holder of ${c.hostname}`,
      // The target's own image: it is there already, and every lab image has coreutils' sleep.
      image: c.untrusted ? holderImage(c, labImage) : c.image,
      hostname: c.hostname,
      aliases: [...c.aliases, c.name],
      env: {},
      entrypoint: ["sleep", "infinity"],
      labels: { ...c.labels, [LABELS.role]: NETNS_ROLE },
      files: [],
      tier: c.tier - 0.25,
      ready: [],
      // The worker dials the target at the holder's address: on a cluster these are published on the holder.
      publish: dialedPorts(c),
    };
    out[at] = { ...c, aliases: [], networkOf: holder.name };
    out.push(holder);
  }
  return out;
}
