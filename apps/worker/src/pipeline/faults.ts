import { faultLabel, faultSchedule, isNetworkFault, TFault, TFaultActual } from "@scalelab/scenarios/contract";
import { RunPlan } from "@scalelab/scenarios/plan";
import { errorMessage } from "../log";
import { ContainerAction, hostPort, StartedContainer } from "../provisioner/types";
import { RunContext } from "./context";
import { OwnActions } from "./interference";
import { applyNetworkFault, clearNetworkFaults } from "./toxiproxy";

export type FaultRunner = {
  /** Arms every fault relative to the load's start (unix ms, the load generator's own clock). */
  begin(startMs: number): void;
  /** Disarms what has not come yet (recorded as not applied) and waits for what is being applied. */
  stop(): Promise<void>;
};

/**
 * Applies the run's fault timeline during the load. Each fault fires on its own timer, so one that
 * takes long (a stop waits for the process to exit) does not delay another target's; faults on the
 * same target run one after another in schedule order. Each is recorded with its actual time and
 * how long the engine took; one that fails is an event with the engine's reason and the run goes on.
 */
export function scheduleFaults(ctx: RunContext, plan: RunPlan, containers: StartedContainer[], own: OwnActions): FaultRunner {
  const faults = ctx.run.faults;
  const timers: NodeJS.Timeout[] = [];
  const chains = new Map<string, Promise<void>>();
  const pending = new Set<number>(faults.map((_, i) => i));
  let startMs = 0;
  let stopped = false;

  const record = async (index: number, actual: TFaultActual) => {
    pending.delete(index);
    const f = faults[index]!;
    const late = `${actual.lagMs >= 0 ? "+" : ""}${Math.round(actual.lagMs)} ms`;
    await ctx.report.saveFault(index, actual).catch((err) => ctx.deps.log.warn("could not record a fault", { error: errorMessage(err) }));
    await ctx.report
      .event(
        actual.error ? "warn" : "info",
        actual.error
          ? `fault ${faultLabel(f)} failed at ${(actual.atMs / 1000).toFixed(3)} s (${late}): ${actual.error}; the run goes on`
          : `fault ${faultLabel(f)} applied at ${(actual.atMs / 1000).toFixed(3)} s (${late}), took ${Math.round(actual.tookMs)} ms`,
      )
      .catch(() => undefined);
  };

  const fire = (index: number) => {
    const f = faults[index]!;
    // Node's timers may fire a millisecond early by the wall clock: never apply a fault before its second.
    const early = startMs + f.at * 1000 - Date.now();
    if (early > 0) {
      timers.push(setTimeout(fire, early, index));
      return;
    }
    const key = `${f.target.role}-${f.target.index}`;
    const previous = chains.get(key) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (stopped) return;
      const called = Date.now();
      const atMs = called - startMs;
      let error: string | undefined;
      try {
        await apply(ctx, plan, containers, f, own);
      } catch (err) {
        error = errorMessage(err);
      }
      await record(index, { atMs, lagMs: atMs - f.at * 1000, tookMs: Date.now() - called, ...(error && { error }) });
    });
    chains.set(key, next);
  };

  return {
    begin(start) {
      if (startMs || faults.length === 0) return;
      startMs = start;
      for (const { index, fault } of faultSchedule(faults)) {
        timers.push(setTimeout(fire, Math.max(0, start + fault.at * 1000 - Date.now()), index));
      }
    },
    async stop() {
      stopped = true;
      timers.forEach(clearTimeout);
      await Promise.all(chains.values());
      const now = startMs ? Date.now() - startMs : 0;
      for (const index of [...pending]) {
        await record(index, { atMs: now, lagMs: 0, tookMs: 0, error: "not applied: the load ended before its second" });
      }
    },
  };
}

async function apply(ctx: RunContext, plan: RunPlan, containers: StartedContainer[], f: TFault, own: OwnActions): Promise<void> {
  const { provisioner } = ctx.deps;
  if (f.action === "clear" || isNetworkFault(f.action)) {
    const proxy = plan.faultProxies.find((p) => p.target.role === f.target.role && p.target.index === f.target.index);
    if (!proxy) throw new Error(`no network-fault proxy in front of ${f.target.role}-${f.target.index} (a bug in the plan)`);
    const started = containers.find((c) => c.name === proxy.container);
    if (!started) throw new Error(`the proxy ${proxy.container} is not running`);
    const base = `http://${hostPort(await provisioner.dialAddress(started.id, plan.network.name, proxy.apiPort))}`;
    if (f.action === "clear") await clearNetworkFaults(base, proxy.proxies, ctx.signal);
    else await applyNetworkFault(base, proxy.proxies, f, ctx.signal);
    return;
  }
  const target = containers.find((c) => c.role === f.target.role && c.name.endsWith(`-${f.target.role}-${f.target.index}`));
  if (!target) throw new Error(`the run has no container ${f.target.role}-${f.target.index}`);
  // The engine's events of this action are the run's own, not outside interference.
  const done = own(target.name, f.action);
  try {
    await provisioner.act(target.id, f.action satisfies ContainerAction);
  } finally {
    done();
  }
}
