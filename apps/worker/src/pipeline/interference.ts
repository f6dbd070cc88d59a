import { ContainerFault, ENGINE_EVENTS, EngineEventAction, InterferenceReader } from "@scalelab/scenarios/analysis";
import { TInterference } from "@scalelab/scenarios/contract";
import { LABELS, RunPlan } from "@scalelab/scenarios/plan";
import { errorMessage } from "../log";
import { ContainerEvent } from "../provisioner/types";
import { lastOutput, RunContext, sleep } from "./context";

/** Called by the fault timeline before it acts on a container; the returned function once the engine answered. */
export type OwnActions = (container: string, action: ContainerFault) => () => void;

export type InterferenceWatch = {
  own: OwnActions;
  /** The load started (unix ms, the load generator's clock): times are said from then on. */
  begin(loadStartMs: number): void;
  /** The interference so far, for the run's summary. */
  entries(): TInterference[];
  /** Stops following: before teardown, whose removals are the run's own. */
  stop(): Promise<void>;
};

/** A followed stream that broke is followed again from its last event after this long. */
const REFOLLOW_MS = 1_000;

/**
 * Follows the engine's events of the run's containers from before the first one starts until
 * teardown begins, and writes on the timeline what the run's own fault timeline did not do (a
 * `docker stop` from a shell, a crash, an OOM kill): the container by its title, its exit code and
 * OOM flag, and when in the run. `analysis/interference.ts` tells the run's own events from others.
 */
export function watchInterference(ctx: RunContext, plan: RunPlan): InterferenceWatch {
  const { deps, report, runId } = ctx;
  const reader = new InterferenceReader(
    [...plan.containers, ...plan.loadgens].map((c) => ({ name: c.name, title: c.title, role: c.role })),
  );
  const ctl = new AbortController();
  let since = BigInt(Date.now()) * 1_000_000n;
  let warned = false;

  const handle = async (e: ContainerEvent) => {
    const attr = (k: string) => (e.attributes[k] !== undefined && e.attributes[k] !== "" ? Number(e.attributes[k]) : undefined);
    let exitCode = attr("exitCode");
    let oomKilled: boolean | undefined;
    if (e.action === "die") {
      // The engine's die event has the exit code, not whether the kernel's OOM killer caused it.
      const state = await deps.provisioner.inspect(e.id, plan.network.name).catch(() => undefined);
      oomKilled = state?.oomKilled;
      exitCode ??= state?.exitCode;
    }
    const signal = attr("signal");
    const notice = reader.push({
      container: e.name,
      action: e.action as EngineEventAction,
      atMs: e.atMs,
      ...(exitCode !== undefined && { exitCode }),
      ...(signal !== undefined && { signal }),
      ...(oomKilled !== undefined && { oomKilled }),
    });
    if (!notice) return;
    const output = notice.lastOutput ? await lastOutput(deps, e.id) : "";
    await report.event("warn", `${notice.message}${output}`);
  };

  const following = (async () => {
    while (!ctl.signal.aborted) {
      try {
        for await (const e of deps.provisioner.containerEvents({ [LABELS.run]: runId }, ENGINE_EVENTS, since, ctl.signal)) {
          // Following again replays from `since`: what was handled is skipped.
          if (e.timeNano < since) continue;
          since = e.timeNano + 1n;
          await handle(e).catch((err) => deps.log.warn("could not record a container event", { runId, error: errorMessage(err) }));
        }
      } catch (err) {
        if (ctl.signal.aborted) break;
        deps.log.warn("following the engine's events failed", { runId, error: errorMessage(err) });
        if (!warned) {
          warned = true;
          await report
            .event("warn", `following the engine's events of the run's containers failed (${errorMessage(err)}); following them again`)
            .catch(() => undefined);
        }
      }
      await sleep(REFOLLOW_MS, ctl.signal).catch(() => undefined);
    }
  })();

  return {
    own(container, action) {
      const a = reader.ownAction(container, action, Date.now());
      return () => a.done(Date.now());
    },
    begin: (loadStartMs) => reader.begin(loadStartMs),
    entries: () => reader.entries(),
    async stop() {
      ctl.abort();
      await following;
    },
  };
}
