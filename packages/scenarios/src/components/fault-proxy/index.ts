import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { PROXY_ROLE, SERVICE_ROLE } from "../../names";
import { isNetworkFault, TFault, TFaultTarget } from "../../contract/faults";
import { LabImage, PlanContext, PlannedContainer } from "../types";

/**
 * The network-fault proxy: Shopify's toxiproxy (v2.5.0, packages/images/contexts/toxiproxy) in
 * front of each container that a network fault of the run targets, and only then, so a run
 * without network faults has no proxy in its path at all.
 *
 * Names. The proxy takes over the names clients dial the target by (its network aliases: the
 * shared `app` of HAProxy's server-template and of the load generator without a balancer, `db`,
 * `kafka`, `lb`, `logs`...) and listens on each of the target's ports, dialling
 * `<target container>:<port>`; the target keeps only its container name. But Docker's DNS also
 * answers a container's host name with its address (the engine adds it to the endpoint's DNS
 * names on every user-defined network, whatever aliases are given), so a name that is the
 * target's host name would resolve to the proxy and the target both. Hence:
 * - a replica (`app`) keeps its host name, which it answers in X-Backend; the proxy does not take
 *   that name, and a client that dials a replica by its own name (nginx's `server app-2`) must
 *   dial the proxy's host name instead: `dialHost` gives it (`proxy-app-2`);
 * - any other target (a store, the broker, the balancer, a logs replica) answers no X-Backend:
 *   its host name becomes its container name, so its client name (`db`, `kafka`, `lb`) is the
 *   proxy's alone. Cassandra is the exception: its seed must be its own host name, so it keeps it
 *   (and its clients find the node's own address through the driver's peer discovery anyway).
 *
 * Facts from toxiproxy v2.5.0's source that decide what the faults mean:
 * - The upstream is dialled once per client connection (proxy.go: `net.Dial` after each
 *   `Accept`), by name, so a target that was stopped and started again is found again. While it
 *   is stopped, a connection to the proxy is accepted and then closed (no refusal): clients see
 *   a reset or an empty reply rather than "connection refused".
 * - A toxic is added to the connections already open as well as to new ones (chainAddToxic).
 * - `toxicity` is drawn once per connection and direction, when the toxic starts on it
 *   (ToxicStub.Run: `rand.Float32() < toxicity`, else a no-op for the connection's life), not per
 *   chunk or per request. With one toxic per direction (one network fault per target at a time)
 *   it is not drawn again until the connection closes.
 * - "upstream" is the client → target direction, "downstream" target → client.
 * - Removing a toxic holds the proxy's lock (new connections wait) until every connection has
 *   flushed what the toxic holds; a chunk that cannot be written (its peer closed) costs 5 s.
 */

export const TOXIPROXY_API_PORT = 8474;
export const TOXIPROXY_CONFIG_PATH = "/scalelab/toxiproxy.json";

/** Where the worker finds the proxy of a target: its container and the names of its proxies (one per port). */
export type FaultProxy = {
  target: TFaultTarget;
  /** The proxy container's name. */
  container: string;
  /** toxiproxy's HTTP API port on the proxy container. */
  apiPort: number;
  /** toxiproxy's proxy names, `<role>-<index>-<port>`, one per port of the target. */
  proxies: string[];
};

/** One proxy of toxiproxy's `-config` file. */
export type ToxiproxyProxy = { name: string; listen: string; upstream: string; enabled: boolean };

/** A toxic as toxiproxy's API takes it (POST /proxies/{proxy}/toxics). */
export type Toxic = {
  name: string;
  type: "latency" | "timeout" | "bandwidth" | "reset_peer";
  stream: "upstream" | "downstream";
  /** The share of connections it applies to, drawn per connection (see above). */
  toxicity: number;
  attributes: Record<string, number>;
};

/** The distinct targets of the run's network faults, in the order they first appear. */
export function networkFaultTargets(run: { faults: readonly Pick<TFault, "action" | "target">[] }): TFaultTarget[] {
  const seen = new Map<string, TFaultTarget>();
  for (const f of run.faults) {
    const key = `${f.target.role}-${f.target.index}`;
    if (isNetworkFault(f.action) && !seen.has(key)) seen.set(key, { role: f.target.role, index: f.target.index });
  }
  return [...seen.values()];
}

/** The proxy's image, only for a run with a network fault. */
export const faultProxyImages = (run: Pick<TRunCreate, "faults">): LabImage[] => (networkFaultTargets(run).length > 0 ? ["toxiproxy"] : []);

export const proxyName = (target: TFaultTarget, port: number) => `${target.role}-${target.index}-${port}`;

export function renderToxiproxyConfig(target: TFaultTarget, upstreamHost: string, ports: readonly number[]): string {
  const proxies: ToxiproxyProxy[] = ports.map((port) => ({
    name: proxyName(target, port),
    listen: `0.0.0.0:${port}`,
    upstream: `${upstreamHost}:${port}`,
    enabled: true,
  }));
  return `${JSON.stringify(proxies, null, 2)}\n`;
}

/** The host name of the proxy in front of a container with this host name. */
export const proxyHost = (hostname: string) => `${PROXY_ROLE}-${hostname}`;

const isTarget = (run: Pick<TRunCreate, "faults">, t: TFaultTarget) =>
  networkFaultTargets(run).some((n) => n.role === t.role && n.index === t.index);

/**
 * The name a client dials a container by its host name with: the proxy's when a network fault
 * targets the container (nginx's upstream of a replica), else the host name itself.
 */
export const dialHost = (run: Pick<TRunCreate, "faults">, target: TFaultTarget, hostname: string): string =>
  isTarget(run, target) ? proxyHost(hostname) : hostname;

/** Containers whose host name is read (X-Backend; Cassandra's seed): they keep it behind a proxy. */
const KEEPS_HOSTNAME = (c: PlannedContainer) => c.role === SERVICE_ROLE || c.keepsHostname === true;

/**
 * Puts a proxy in front of each target of the run's network faults: returns the containers with
 * each target stripped of its aliases (and of its host name where nobody reads it) and its proxy
 * added (a tier after it, before the tier that connects to it: nginx resolves its upstreams when
 * it starts), and where each proxy is.
 */
export function planFaultProxies(
  ctx: PlanContext,
  containers: readonly PlannedContainer[],
): { containers: PlannedContainer[]; faultProxies: FaultProxy[] } {
  const targetList = networkFaultTargets(ctx.run);
  if (targetList.length === 0) return { containers: [...containers], faultProxies: [] };
  const out = [...containers];
  const faultProxies: FaultProxy[] = [];
  for (const target of targetList) {
    const key = `${target.role}-${target.index}`;
    const at = containers.findIndex((c) => c.role === target.role && c.name.endsWith(`-${key}`));
    const c = containers[at];
    if (!c) throw new Error(`a network fault targets ${key}, which the plan does not have`);
    const ports = c.ports ?? [];
    if (ports.length === 0) throw new Error(`a network fault targets ${key}, which takes no incoming connections`);
    const keeps = KEEPS_HOSTNAME(c);
    const proxy = ctx.container({
      index: target.index,
      role: PROXY_ROLE,
      component: "toxiproxy",
      title: `the network-fault proxy of ${c.hostname}`,
      image: "toxiproxy",
      hostname: proxyHost(c.hostname),
      aliases: keeps ? c.aliases.filter((a) => a !== c.hostname) : c.aliases,
      env: { LOG_LEVEL: "error" },
      cmd: ["toxiproxy-server", "-host", "0.0.0.0", "-port", String(TOXIPROXY_API_PORT), "-config", TOXIPROXY_CONFIG_PATH],
      files: [{ path: TOXIPROXY_CONFIG_PATH, content: renderToxiproxyConfig(target, c.name, ports) }],
      tier: c.tier + 0.5,
      ready: [TOXIPROXY_API_PORT, ...ports].map((port) => ({ kind: "tcp" as const, port })),
    });
    // `sl-<run>-proxy-app-2` rather than `sl-<run>-proxy-2`: two targets may share an index.
    const named = { ...proxy, name: `${c.name.slice(0, -key.length - 1)}-${PROXY_ROLE}-${key}` };
    out[at] = { ...c, aliases: [], ...(!keeps && { hostname: c.name }) };
    out.push(named);
    faultProxies.push({ target, container: named.name, apiPort: TOXIPROXY_API_PORT, proxies: ports.map((p) => proxyName(target, p)) });
  }
  return { containers: out, faultProxies };
}

/**
 * The toxics a network fault puts on each proxy of its target (`clear` puts none: it removes
 * every toxic of the target's proxies). From toxiproxy v2.5.0's toxics/*.go:
 * - `delay`: a `latency` toxic on the traffic into the target: each chunk the client sends is held
 *   until `ms` (± `jitterMs`, uniform) after it was read, so each request reaches the target `ms`
 *   later and the response comes back as fast as before. Connections are accepted at once (the
 *   TCP connect is not delayed).
 * - `loss`: no packet loss (that would need netem, which this kernel lacks): a `timeout` toxic
 *   with timeout 0 and toxicity percent/100 on the traffic into the target: that share of the
 *   connections, drawn per connection, new and already open, is black-holed: accepted, nothing
 *   they send reaches the target, and the proxy never closes them, so their requests hang until
 *   the client's own timeout (nginx's proxy_read_timeout, the load generator's request timeout).
 *   The others pass untouched. Over per-request connections that is about `percent` % of
 *   requests; over keep-alive connections a hung connection hangs every request on it. `clear`
 *   closes the hung connections (the toxic's Cleanup closes its stream).
 * - `bandwidth`: a `bandwidth` toxic each direction at `kbps`/8 KB/s (toxiproxy's KB is 1000 bytes:
 *   it sleeps len/rate ms per chunk), rounded, at least 1 KB/s (rate 0 would mean unlimited).
 * - `reset`: a `reset_peer` toxic with timeout 0 on the traffic into the target: a connection is
 *   closed as soon as the client sends anything, with a TCP RST for connections opened after the
 *   fault (toxiproxy sets SO_LINGER 0 when a connection starts with the toxic) and a plain close
 *   for those already open; the target never sees the request. Clients see "connection reset"
 *   or an empty reply.
 */
export function toxicsFor(fault: Pick<TFault, "action" | "ms" | "jitterMs" | "percent" | "kbps">): Toxic[] {
  switch (fault.action) {
    case "delay":
      return [
        {
          name: "delay",
          type: "latency",
          stream: "upstream",
          toxicity: 1,
          attributes: { latency: need(fault, "ms"), jitter: fault.jitterMs ?? 0 },
        },
      ];
    case "loss":
      return [{ name: "loss", type: "timeout", stream: "upstream", toxicity: need(fault, "percent") / 100, attributes: { timeout: 0 } }];
    case "bandwidth": {
      const rate = Math.max(1, Math.round(need(fault, "kbps") / 8));
      return [
        { name: "bandwidth-in", type: "bandwidth", stream: "upstream", toxicity: 1, attributes: { rate } },
        { name: "bandwidth-out", type: "bandwidth", stream: "downstream", toxicity: 1, attributes: { rate } },
      ];
    }
    case "reset":
      return [{ name: "reset", type: "reset_peer", stream: "upstream", toxicity: 1, attributes: { timeout: 0 } }];
    case "clear":
      return [];
    default:
      throw new Error(`${fault.action} is not a network fault`);
  }
}

function need<K extends "ms" | "percent" | "kbps">(fault: Pick<TFault, "action" | K>, key: K): number {
  const v = fault[key];
  if (typeof v !== "number") throw new Error(`${fault.action} needs ${key}`);
  return v;
}
