import { Agent, get } from "node:http";
import { CONSUMER_ROLE, SERVICE_ROLE, componentFigures } from "@scalelab/scenarios/components";
import { StatsReading } from "@scalelab/scenarios/components";
import { FIGURE_DEFS, total, ZTestbedStats } from "@scalelab/scenarios/components";
import { parseHaproxyCsv, HaproxyStats } from "@scalelab/scenarios/components";
import { RunPlan } from "@scalelab/scenarios/plan";
import { FigureSeries } from "@scalelab/scenarios/components";
import { errorMessage } from "../log";
import { hostPort, StartedContainer } from "../provisioner/types";
import { deadline, RunContext } from "./context";

const POLL_TIMEOUT_MS = 900;
const RATES = new Set(FIGURE_DEFS.filter((d) => d.kind === "rate").map((d) => d.key));

type Source = { name: string; role: string; url: string; format: "testbed" | "haproxy" };

/**
 * One GET answered 200, its body as text, over node:http: once a second per container for a whole
 * run, it costs about half the CPU of `fetch` (undici and web streams).
 */
export function getText(url: string, agent: Agent, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        resolve(Buffer.concat(chunks).toString("utf8"));
      });
    });
    req.on("error", reject);
  });
}

/**
 * Polls the testbed's `/stats` of every container that has one (and HAProxy's CSV statistics),
 * once a second, and records the components' figures for that second (pool, broker, downstream,
 * balancer). A container that does not answer
 * in a second keeps its last reading, so a missed poll never shows as a drop in a cumulative count.
 */
export async function followFigures(ctx: RunContext, plan: RunPlan, started: StartedContainer[]) {
  const network = plan.network.name;
  const byName = new Map(started.map((s) => [s.name, s]));
  const sources: Source[] = [];
  for (const c of plan.containers) {
    const s = byName.get(c.name);
    if (!c.stats || !s) continue;
    const at = await ctx.deps.provisioner.dialAddress(s.id, network, c.stats.port);
    sources.push({ name: c.name, role: c.role, url: `http://${hostPort(at)}${c.stats.path}`, format: c.stats.format ?? "testbed" });
  }

  const latest = new Map<string, StatsReading>();
  let haproxy: HaproxyStats | undefined;
  const failing = new Set<string>();
  // One kept-alive connection per container for the whole run, not one per poll.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const poll = async () => {
    await Promise.all(
      sources.map(async (src) => {
        try {
          const body = await getText(src.url, agent, AbortSignal.any([ctx.signal, AbortSignal.timeout(POLL_TIMEOUT_MS)]));
          if (src.format === "haproxy") haproxy = parseHaproxyCsv(body);
          else latest.set(src.name, { container: src.name, role: src.role, stats: ZTestbedStats.parse(JSON.parse(body)) });
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
  // HAProxy's counters grow from the reading before the load, like the testbed's from the baseline.
  let previousHaproxy: HaproxyStats | undefined = haproxy;
  const tick = async (startMs: number) => {
    if (ticking) return;
    ticking = true;
    try {
      // The second this reading belongs to is when the poll began, whatever the poll took.
      const t = Math.max(lastT + 1, Math.round((Date.now() - startMs) / 1000) - 1);
      lastT = t;
      const current = await poll();
      const lb = haproxy && { current: haproxy, previous: previousHaproxy };
      const raw = componentFigures({ current, previous, baseline, ...(lb && { haproxy: lb }) }, ctx.run);
      previousHaproxy = haproxy;
      // After a skipped second (a slow poll), a count's growth covers several seconds: keep it per second.
      const seconds = previousT === undefined ? 1 : t - previousT;
      const figures = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, RATES.has(k) && seconds > 1 ? v / seconds : v]));
      previous = current;
      previousT = t;
      if (Object.keys(figures).length === 0) return;
      series.push({ t, figures });
      writes = writes
        .then(() => ctx.report.saveFigures(t, figures))
        .catch((err) => ctx.deps.log.warn("could not record figures", { t, error: errorMessage(err) }));
    } finally {
      ticking = false;
    }
  };

  /** Totals since the load started, from the cumulative counters. */
  const totals = () => {
    const now = [...latest.values()];
    const grew = (role: string, pick: (s: StatsReading["stats"]) => number) => total(now, role, pick) - total(baseline, role, pick);
    const sentAtStart = total(baseline, SERVICE_ROLE, (s) => s.downstream.sent);
    return {
      produced: grew(SERVICE_ROLE, (s) => s.downstream.sent),
      consumed: grew(CONSUMER_ROLE, (s) => s.consumed),
      backlogAtStart: Math.max(0, sentAtStart - total(baseline, CONSUMER_ROLE, (s) => s.consumed)),
      logDropped: grew(SERVICE_ROLE, (s) => s.log.dropped),
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
      agent.destroy();
    },
  };
}

export type FigureFollower = Awaited<ReturnType<typeof followFigures>>;
