import { componentFigures } from "@scalelab/scenarios/components/registry";
import type { StatsReading } from "@scalelab/scenarios/components/types";
import { FIGURE_DEFS, total, ZTestbedStats } from "@scalelab/scenarios/figures";
import type { RunPlan } from "@scalelab/scenarios/plan";
import type { FigureSeries } from "@scalelab/scenarios/components/types";
import { errorMessage } from "../log";
import type { StartedContainer } from "../provisioner/types";
import { deadline, type RunContext } from "./context";

const POLL_TIMEOUT_MS = 900;
const RATES = new Set(FIGURE_DEFS.filter((d) => d.kind === "rate").map((d) => d.key));

type Source = { name: string; role: string; url: string };

/**
 * Polls the testbed's `/stats` of every container that has one, once a second, and records the
 * components' figures for that second (pool, broker, downstream). A container that does not answer
 * in a second keeps its last reading, so a missed poll never shows as a drop in a cumulative count.
 */
export async function followFigures(ctx: RunContext, plan: RunPlan, started: StartedContainer[]) {
  const network = plan.network.name;
  const byName = new Map(started.map((s) => [s.name, s]));
  const sources: Source[] = [];
  for (const c of plan.containers) {
    const s = byName.get(c.name);
    if (!c.stats || !s) continue;
    const { ip } = await ctx.deps.provisioner.inspect(s.id, network);
    sources.push({ name: c.name, role: c.role, url: `http://${ip}:${c.stats.port}${c.stats.path}` });
  }

  const latest = new Map<string, StatsReading>();
  const failing = new Set<string>();
  const poll = async () => {
    await Promise.all(
      sources.map(async (src) => {
        try {
          const res = await fetch(src.url, { signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(POLL_TIMEOUT_MS)]) });
          const stats = ZTestbedStats.parse(await res.json());
          latest.set(src.name, { container: src.name, role: src.role, stats });
          failing.delete(src.name);
        } catch (err) {
          if (ctx.signal.aborted || failing.has(src.name)) return;
          failing.add(src.name);
          ctx.deps.log.warn("stats poll failed; keeping the last reading", { container: src.name, error: errorMessage(err) });
        }
      }),
    );
    return [...latest.values()];
  };

  const baseline = sources.length > 0 ? await poll() : [];
  const series: FigureSeries = [];
  let previous: StatsReading[] | undefined;
  let timer: NodeJS.Timeout | undefined;
  let writes = Promise.resolve();
  let lastT = -1;
  let ticking = false;

  let previousT: number | undefined;
  const tick = async (startMs: number) => {
    if (ticking) return;
    ticking = true;
    try {
      // The second this reading belongs to is when the poll began, whatever the poll took.
      const t = Math.max(lastT + 1, Math.round((Date.now() - startMs) / 1000) - 1);
      lastT = t;
      const current = await poll();
      const raw = componentFigures({ current, previous, baseline }, ctx.run);
      // After a skipped second (a slow poll), a count's growth covers several seconds: keep it per second.
      const seconds = previousT === undefined ? 1 : t - previousT;
      const figures = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, RATES.has(k) && seconds > 1 ? v / seconds : v]));
      previous = current;
      previousT = t;
      if (Object.keys(figures).length === 0) return;
      series.push({ t, figures });
      writes = writes.then(() => save(ctx, t, figures)).catch((err) => ctx.deps.log.warn("could not record figures", { t, error: errorMessage(err) }));
    } finally {
      ticking = false;
    }
  };

  /** Totals since the load started, from the cumulative counters. */
  const totals = () => {
    const now = [...latest.values()];
    const grew = (role: string, pick: (s: StatsReading["stats"]) => number) => total(now, role, pick) - total(baseline, role, pick);
    const sentAtStart = total(baseline, "app", (s) => s.downstream.sent);
    return {
      produced: grew("app", (s) => s.downstream.sent),
      consumed: grew("consumer", (s) => s.consumed),
      backlogAtStart: Math.max(0, sentAtStart - total(baseline, "consumer", (s) => s.consumed)),
      logDropped: grew("app", (s) => s.log.dropped),
    };
  };

  return {
    enabled: sources.length > 0,
    series,
    totals,
    begin(startMs: number) {
      if (sources.length === 0) return;
      timer ??= setInterval(() => void tick(startMs), 1000);
    },
    /** The latest broker lag, or undefined when the run has none. */
    lag: () => series.at(-1)?.figures["broker.lag"],
    async stop() {
      clearInterval(timer);
      await deadline(writes, 5_000, "writing figures").catch((err) => ctx.deps.log.warn(errorMessage(err)));
    },
  };
}

async function save({ deps, runId, report }: RunContext, t: number, figures: Record<string, number>): Promise<void> {
  await deps.db.figureSample.createMany({ data: [{ runId, t, figures }], skipDuplicates: true });
  await report.publish({ type: "figures", t, figures });
}

export type FigureFollower = Awaited<ReturnType<typeof followFigures>>;
