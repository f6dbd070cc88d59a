import {
  addressHost,
  BackendAddresses,
  backendName,
  BackendSource,
  nameBackends,
  PROXY_ROLE,
  replicaHost,
  SERVICE_ROLE,
  TBackendStats,
} from "@scalelab/scenarios/contract";
import { RunPlan } from "@scalelab/scenarios/plan";
import { StartedContainer } from "../provisioner/types";
import { RunContext } from "./context";

/** A replica that was stopped and started again may come back at another address: look again, at most this often. */
const REFRESH_MS = 2_000;

/**
 * The replicas' addresses on the run network, and each network-fault proxy's in front of a replica
 * (the balancer's upstream address is then the proxy's), by the replica's name.
 */
export async function backendAddresses(ctx: RunContext, plan: RunPlan, containers: readonly StartedContainer[]): Promise<BackendAddresses> {
  const out: Record<string, string> = {};
  await Promise.all(
    containers.map(async (c) => {
      let name: string | undefined;
      if (c.role === SERVICE_ROLE) name = plan.containers.find((p) => p.name === c.name)?.hostname;
      if (c.role === PROXY_ROLE) {
        const target = plan.faultProxies.find((p) => p.container === c.name)?.target;
        if (target?.role === SERVICE_ROLE) name = replicaHost(target.index);
      }
      if (!name) return;
      const { ip } = await ctx.deps.provisioner.inspect(c.id, plan.network.name);
      if (ip) out[ip.toLowerCase()] = name;
    }),
  );
  return out;
}

/**
 * Names the load generators' per-backend values after the replicas (../contract/backends.ts
 * backendName): an address the last lookup does not know makes it look again (bounded), so a
 * replica that came back at another address is still found; a value that matches no replica is
 * kept as it came.
 */
export class BackendNamer {
  private addresses: BackendAddresses = {};
  private lookedAt = -Infinity;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly source: BackendSource,
    private readonly lookup: () => Promise<BackendAddresses>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the values need naming at all (the lab's own servers name themselves). */
  get maps(): boolean {
    return this.source !== "header";
  }

  async name<T extends { backends?: Record<string, number>; backendStats?: TBackendStats }>(part: T): Promise<T> {
    if (!this.maps) return part;
    const raws = [...Object.keys(part.backends ?? {}), ...Object.keys(part.backendStats ?? {})];
    if (raws.some((r) => this.unknownAddress(r))) await this.refresh();
    return nameBackends(part, this.addresses, this.source);
  }

  /** The name of one value (a readiness probe's header). */
  async one(raw: string): Promise<string> {
    if (this.unknownAddress(raw)) await this.refresh();
    return backendName(raw, this.addresses, this.source);
  }

  private unknownAddress(raw: string): boolean {
    const host = addressHost(raw);
    return host !== undefined && !Object.hasOwn(this.addresses, host);
  }

  private refresh(): Promise<void> {
    if (this.now() - this.lookedAt < REFRESH_MS) return this.pending ?? Promise.resolve();
    this.lookedAt = this.now();
    // A stopped replica has no address: what it had stays known, for its late answers. A lookup
    // that fails leaves the names as they were (the values then stay as they came).
    this.pending = this.lookup().then(
      (a) => {
        this.addresses = { ...this.addresses, ...a };
      },
      () => undefined,
    );
    return this.pending;
  }
}
