import { gracefulStopSeconds, K6_DASHBOARD_PORT } from "@scalelab/scenarios/k6";
import { K6EventReader } from "@scalelab/scenarios/k6-events";
import type { RunPlan } from "@scalelab/scenarios/plan";
import type { TSample } from "@scalelab/scenarios/schemas";
import type { StartedContainer } from "../provisioner/types";
import { errorMessage } from "../log";
import { sseEvents } from "../sse";
import { followContainerStats, type ContainerRow } from "./container-stats";
import { describeExit, sleep, type RunContext } from "./context";
import { followFigures, type FigureFollower } from "./figures";

export type LoadResult = { reader: K6EventReader; figures: FigureFollower };

/**
 * Runs k6 on the run network and records its per-second buckets, every container's Docker stats
 * and the components' figures until k6 reports the end; then, while a broker still holds work,
 * keeps recording the figures for the drain window so a backlog is shown, not hidden.
 */
export async function runLoad(ctx: RunContext, plan: RunPlan, containers: StartedContainer[]): Promise<LoadResult> {
  const { deps, report, runId, signal } = ctx;
  const network = plan.network.name;
  const figures = await followFigures(ctx, plan, containers);
  const k6 = await deps.provisioner.startContainer(plan.loadgen, network);
  const { ip } = await deps.provisioner.inspect(k6.id, network);
  const stats = followContainerStats({
    provisioner: deps.provisioner,
    containers: [...containers, k6],
    onTick: (t, rows) => saveContainerRows(ctx, t, rows),
    log: deps.log,
  });

  const { durationSeconds } = ctx.run.workload;
  const limitMs = (durationSeconds + gracefulStopSeconds(ctx.run.workload)) * 1000 + deps.timeouts.k6ConnectMs;
  const overtime = AbortSignal.timeout(limitMs);
  const reader = new K6EventReader();
  let stopped = false;
  try {
    const events = sseEvents(`http://${ip}:${K6_DASHBOARD_PORT}/events`, {
      signal: AbortSignal.any([signal, overtime]),
      connectTimeoutMs: deps.timeouts.k6ConnectMs,
      beforeRetry: async () => {
        const state = await deps.provisioner.inspect(k6.id, network);
        if (!state.running) throw new Error(await describeExit(deps, k6.id, `k6 (${k6.name})`, network));
      },
    });
    for await (const { event, data } of events) {
      const update = reader.push(event ?? "message", data);
      if (update?.type === "start") {
        stats.begin(update.at.getTime());
        figures.begin(update.at.getTime());
        await deps.db.run.update({ where: { id: runId }, data: { loadStartedAt: update.at } });
        await report.detail(`load running for ${durationSeconds} s`);
      } else if (update?.type === "sample") {
        await saveSample(ctx, update.sample);
        await report.detail(`${Math.min(update.sample.t + 1, durationSeconds)}/${durationSeconds} s, ${update.sample.requests} req/s`);
      } else if (update?.type === "stop") {
        stopped = true;
        break;
      }
    }
  } catch (err) {
    await Promise.all([stats.stop(), figures.stop()]);
    signal.throwIfAborted();
    if (overtime.aborted) throw new Error(`k6 did not finish within ${Math.round(limitMs / 1000)} s`);
    throw err;
  }
  await stats.stop();
  try {
    if (stopped) await drain(ctx, figures);
  } finally {
    await figures.stop();
  }
  if (!stopped) {
    const logs = await deps.provisioner.logs(k6.id, 15).catch(() => "");
    throw new Error(`k6 (${k6.name}) closed its event stream before the end of the test; last output:\n${logs}`);
  }

  const exitCode = await deps.provisioner.waitExit(k6.id, deps.timeouts.k6ExitMs);
  if (exitCode === undefined) throw new Error(`k6 (${k6.name}) did not exit within ${deps.timeouts.k6ExitMs / 1000} s after the test`);
  if (exitCode !== 0) throw new Error(await describeExit(deps, k6.id, `k6 (${k6.name})`, network));
  return { reader, figures };
}

/** Waits (bounded) for the consumers to work off what the broker still holds, while it is recorded. */
async function drain(ctx: RunContext, figures: FigureFollower): Promise<void> {
  const lag = figures.lag();
  if (lag === undefined || lag === 0) return;
  await ctx.report.detail(`load ended with ${lag} event(s) not yet consumed; following the consumers`);
  const until = Date.now() + ctx.deps.timeouts.drainMs;
  try {
    while (Date.now() < until && (figures.lag() ?? 0) > 0) await sleep(500, ctx.signal);
  } catch (err) {
    if (!ctx.signal.aborted) throw err;
    // The load itself is complete: stop following and let the run keep its summary.
    await ctx.report.event("warn", `stopped following the consumers after the load with ${figures.lag() ?? 0} event(s) left: ${errorMessage(ctx.signal.reason)}`);
    return;
  }
  const left = figures.lag() ?? 0;
  await ctx.report.event(
    left > 0 ? "warn" : "info",
    left > 0
      ? `${left} event(s) were still waiting in the broker ${ctx.deps.timeouts.drainMs / 1000} s after the load ended`
      : `the consumers worked off the broker's backlog after the load ended`,
  );
}

async function saveSample({ deps, runId, report }: RunContext, s: TSample): Promise<void> {
  const l = s.latencyMs;
  await deps.db.runSample.createMany({
    data: [
      {
        runId,
        t: s.t,
        requests: s.requests,
        errors: s.errors,
        latAvg: l?.avg ?? null,
        latP50: l?.p50 ?? null,
        latP90: l?.p90 ?? null,
        latP95: l?.p95 ?? null,
        latP99: l?.p99 ?? null,
        latMax: l?.max ?? null,
        backends: s.backends ?? {},
      },
    ],
    skipDuplicates: true,
  });
  await report.publish({ type: "sample", sample: s });
}

async function saveContainerRows({ deps, runId, report }: RunContext, t: number, rows: ContainerRow[]): Promise<void> {
  await deps.db.containerSample.createMany({
    data: rows.map((r) => ({ runId, t, ...r, memBytes: BigInt(r.memBytes) })),
    skipDuplicates: true,
  });
  await report.publish({ type: "containers", t, containers: rows });
}
