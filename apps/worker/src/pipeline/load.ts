import { setMaxListeners } from "node:events";
import { gracefulStopSeconds, K6_DASHBOARD_PORT } from "@scalelab/scenarios/loadgen";
import { K6EventReader } from "@scalelab/scenarios/loadgen";
import { wrkTotals } from "@scalelab/scenarios/loadgen";
import {
  K6Histograms,
  mergeableSecond,
  mergeSummaries,
  percentilesMerge,
  SampleMerger,
  withoutHistogram,
  WithHistogram,
} from "@scalelab/scenarios/loadgen";
import { PlannedContainer, RunPlan } from "@scalelab/scenarios/plan";
import { TRunSummary, TSample, TScriptSummary } from "@scalelab/scenarios/contract";
import { parseProbeLine, PROBE_INTERVAL_MS, secondsFromSamples, TCounterSample, THostReading } from "@scalelab/scenarios/analysis";
import { mergeChecks, mergeScriptMetrics, parseScriptSummary, ScriptSummaryLine } from "@scalelab/scenarios/loadgen";
import { WrkOutputReader } from "@scalelab/scenarios/loadgen";
import { hostPort, NodeCpuFollow, StartedContainer } from "../provisioner/types";
import { errorMessage } from "../log";
import { sseEvents } from "../sse";
import { followContainerStats } from "./container-stats";
import { followHostCpu } from "./host-cpu";
import { describeExit, sleep, RunContext } from "./context";
import { scheduleFaults } from "./faults";
import { followFigures, FigureFollower } from "./figures";
import { InterferenceWatch } from "./interference";
import { backendAddresses, BackendNamer } from "./backends";

export type LoadResult = {
  /** The load generators' whole-run figures, merged over the instances; undefined if none reported them. */
  totals: TRunSummary | undefined;
  /** With several instances: how their percentiles were merged (../../../packages/scenarios/src/loadgen/merge.ts). */
  percentiles?: "merged" | "worst instance";
  figures: FigureFollower;
  /**
   * The load's seconds, the rates' denominator: workload.durationSeconds, or with a script's own
   * scenarios the seconds k6 reported (they end when the script's scenarios do).
   */
  seconds: number;
  /** workload.script: its checks, thresholds and own metrics. */
  script?: TScriptSummary;
  /** The host's busy CPU and the worker's own in each second of the load (host-cpu.ts); none when hostByNode is read instead. */
  host: THostReading[];
  /** On a cluster of separate machines: each node's busy CPU in each second of the load, read on the node. */
  hostByNode?: Record<string, THostReading[]>;
};

type LoadUpdate = { type: "start"; at: Date } | { type: "sample"; sample: WithHistogram<TSample> } | { type: "stop"; at: Date };

/** One running load-generator container: its per-second updates as they come, and its totals (rates over `seconds`) once it stopped. */
type Generator = {
  container: StartedContainer;
  title: string;
  updates: AsyncIterable<LoadUpdate>;
  /** Its whole-run figures (rates over `seconds`), per-backend values named after the replicas, with its histogram when it gave one. */
  totals: (seconds: number) => Promise<WithHistogram<TRunSummary> | undefined>;
  /** k6 running a user's script: the script's own metrics. */
  scriptMetrics?: () => TScriptSummary["metrics"];
};

/**
 * Runs the load generators on the run network and records their per-second buckets (merged into
 * one series when there are several), every container's Docker stats and the components' figures
 * until every generator reports the end; then, while a broker still holds work, keeps recording
 * the figures for the drain window so a backlog is shown, not hidden.
 */
export async function runLoad(
  ctx: RunContext,
  plan: RunPlan,
  containers: StartedContainer[],
  interference: InterferenceWatch,
  /** Each node's CPU probe (Provisioner.nodeCpuProbes): host noise per node. */
  nodeCpu: ReadonlyMap<string, NodeCpuFollow> = new Map(),
): Promise<LoadResult> {
  const { deps, report, runId, signal } = ctx;
  const network = plan.network.name;
  const figures = await followFigures(ctx, plan, containers);
  const faults = scheduleFaults(ctx, plan, containers, interference.own);
  const started = await Promise.all(plan.loadgens.map((spec) => deps.provisioner.startContainer(spec, network)));
  const stats = followContainerStats({
    provisioner: deps.provisioner,
    containers: [...containers, ...started],
    onTick: (t, rows) => ctx.report.saveContainers(t, rows),
    log: deps.log,
  });
  // The lab's host's CPU, unless each node's probe reads its own machine's (separate machines).
  const host = nodeCpu.size > 0 ? undefined : followHostCpu({ log: deps.log });
  // Each node's probe, followed from now to the load's end: its samples, read off at the load's seconds after it.
  const probes = new AbortController();
  const nodeHosts = [...nodeCpu].map(([node, follow]) => {
    const samples: TCounterSample[] = [];
    const done = (async () => {
      for await (const line of follow(probes.signal)) {
        const sample = parseProbeLine(line);
        if (sample) samples.push(sample);
      }
    })().catch((err: unknown) =>
      deps.log.warn(`could not follow node ${node}'s CPU probe; its host noise is not measured`, { runId, error: errorMessage(err) }),
    );
    return { node, samples, done };
  });
  let loadStartMs: number | undefined;

  const { durationSeconds } = ctx.run.workload;
  // A script's own scenarios take what k6 inspect said they may (graceful stops included); the lab's, the workload's duration.
  const own = ctx.script?.ownScenarios === true;
  const boundSeconds = own ? ctx.script!.totalSeconds : durationSeconds + gracefulStopSeconds(ctx.run.workload);
  const limitMs = boundSeconds * 1000 + deps.timeouts.k6ConnectMs;
  let sampled = 0;
  // Seconds stored, and of them those merged from every instance's histogram.
  const secondsMerged = { stored: 0, merged: 0 };
  const overtime = AbortSignal.timeout(limitMs);
  // One generator failing stops following the others.
  const failed = new AbortController();
  const until = AbortSignal.any([signal, overtime, failed.signal]);
  // Every instance's streams and retries listen to it.
  setMaxListeners(0, until);
  // Addresses (the balancer's header, the connection's) become replica names before anything stores them.
  const namer = new BackendNamer(plan.backendSource, () => backendAddresses(ctx, plan, containers));
  const generators = started.map((c, i) => follow(ctx, network, plan.loadgens[i]!, c, until, namer));
  const merger = new SampleMerger(generators.length);
  let loadStarted = false;
  // Samples are stored in order, one at a time, whichever generator completed the second.
  let saving = Promise.resolve();
  const save = (samples: WithHistogram<TSample>[]) => {
    for (const s of samples) {
      // A second that cannot be stored (the database away, the run's row deleted) stops the load and
      // fails the run at once; the chain itself never rejects, so no rejection waits unhandled.
      saving = saving
        .then(async () => {
          if (failed.signal.aborted) return;
          sampled = Math.max(sampled, s.t + 1);
          secondsMerged.stored++;
          if (s.histogram) secondsMerged.merged++;
          await report.saveSample(withoutHistogram(s));
          await report.detail(
            own
              ? `${s.t + 1} s (the script's scenarios), ${s.requests} req/s`
              : `${Math.min(s.t + 1, durationSeconds)}/${durationSeconds} s, ${s.requests} req/s`,
          );
        })
        .catch((err: unknown) => failed.abort(err));
    }
  };
  try {
    await Promise.all(
      generators.map(async (g, i) => {
        try {
          for await (const update of g.updates) {
            if (update.type === "start" && !loadStarted) {
              loadStarted = true;
              faults.begin(update.at.getTime());
              interference.begin(update.at.getTime());
              stats.begin(update.at.getTime());
              host?.begin(update.at.getTime());
              loadStartMs = update.at.getTime();
              figures.begin(update.at.getTime());
              await deps.db.run.update({ where: { id: runId }, data: { loadStartedAt: update.at } });
              await report.detail(
                own ? `load running: the script's scenarios, up to ${boundSeconds} s` : `load running for ${durationSeconds} s`,
              );
            } else if (update.type === "sample") {
              save(merger.push(i, await namer.name(update.sample)));
            } else if (update.type === "stop") {
              save(merger.end(i));
              return;
            }
          }
        } catch (err) {
          failed.abort(err);
          throw err;
        }
        const logs = await deps.provisioner.logs(g.container.id, 15).catch(() => "");
        const error = new Error(`${g.title} (${g.container.name}) ended its output before the end of the test; last output:\n${logs}`);
        failed.abort(error);
        throw error;
      }),
    );
    await saving;
    if (failed.signal.aborted) throw failed.signal.reason;
  } catch (err) {
    host?.stop();
    probes.abort();
    await Promise.all([faults.stop(), stats.stop(), figures.stop(), saving.catch(() => undefined)]);
    signal.throwIfAborted();
    if (overtime.aborted) throw new Error(`the load generator did not finish within ${Math.round(limitMs / 1000)} s`);
    throw failed.signal.aborted ? failed.signal.reason : err;
  }
  host?.stop();
  await Promise.all([faults.stop(), stats.stop()]);
  try {
    await drain(ctx, figures);
  } finally {
    await figures.stop();
  }

  const lines: ScriptSummaryLine[] = [];
  for (const g of generators) {
    const exitCode = await deps.provisioner.waitExit(g.container.id, deps.timeouts.k6ExitMs);
    if (exitCode === undefined)
      throw new Error(`${g.title} (${g.container.name}) did not exit within ${deps.timeouts.k6ExitMs / 1000} s after the test`);
    if (exitCode !== 0) throw new Error(await describeExit(deps, g.container.id, `${g.title} (${g.container.name})`, network));
    if (g.scriptMetrics) {
      const line = parseScriptSummary(await deps.provisioner.logs(g.container.id, SCRIPT_OUTPUT_LINES));
      if (!line) throw new Error(`${g.title} (${g.container.name}) printed no summary of the script's checks`);
      lines.push(line);
    }
  }
  // With the script's own scenarios the load lasts as long as they do: the seconds k6 reported.
  const seconds = own ? Math.max(1, sampled) : durationSeconds;
  const parts = await Promise.all(generators.map((g) => g.totals(seconds)));
  const script = scriptSummary(generators, lines, own);
  const measured = parts.every((p) => p !== undefined) ? (parts as WithHistogram<TRunSummary>[]) : undefined;
  const totals = measured && mergeSummaries(measured);
  if (measured && totals && measured.length > 1) {
    const each = measured.map((p, i) => `${generators[i]!.title} ${p.latencyMs.p95} ms`).join(", ");
    await report.event(
      "info",
      percentilesMerge(measured) === "merged"
        ? `latency percentiles merged from the ${measured.length} load generators' histograms: p95 ${totals.latencyMs.p95} ms (each alone: ${each}); ${secondsMerged.merged} of ${secondsMerged.stored} seconds merged so`
        : `latency percentiles are the worst instance's (a load generator gave no histogram): p95 ${totals.latencyMs.p95} ms (each alone: ${each})`,
    );
  }
  return {
    totals: totals && withoutHistogram(totals),
    ...(measured && measured.length > 1 && { percentiles: percentilesMerge(measured) }),
    figures,
    seconds,
    host: host?.seconds().filter((h) => h.t < seconds) ?? [],
    ...(nodeHosts.length > 0 && { hostByNode: await nodeSeconds(nodeHosts, probes, loadStartMs, seconds) }),
    ...(script && { script }),
  };
}

/**
 * Each node's seconds of the load from its probe's samples, once they span the load's last second
 * (a probe prints every PROBE_INTERVAL_MS; waited for at most PROBE_WAIT_MS more), then stops
 * following the probes.
 */
async function nodeSeconds(
  nodes: readonly { node: string; samples: TCounterSample[]; done: Promise<void> }[],
  probes: AbortController,
  startMs: number | undefined,
  seconds: number,
): Promise<Record<string, THostReading[]>> {
  const endMs = (startMs ?? 0) + seconds * 1000;
  const waitUntil = Date.now() + PROBE_WAIT_MS;
  while (startMs !== undefined && Date.now() < waitUntil && nodes.some((n) => !n.samples.some((s) => s.atMs >= endMs)))
    await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
  probes.abort();
  await Promise.all(nodes.map((n) => n.done));
  return Object.fromEntries(nodes.map((n) => [n.node, startMs === undefined ? [] : secondsFromSamples(n.samples, startMs, seconds)]));
}

/** How long after the load a node's probe may take to print past its last second (a node's clock a little behind, or its output late). */
const PROBE_WAIT_MS = 3_000;

/** Lines of a k6 container's output searched for the wrapper's summary line (the last of its stdout; k6 may log a line or two after it). */
const SCRIPT_OUTPUT_LINES = 50;

/** The user script's checks (k6's end-of-test summary) and own metrics (the dashboard's), over the instances. */
function scriptSummary(generators: Generator[], lines: ScriptSummaryLine[], ownScenarios: boolean): TScriptSummary | undefined {
  const metrics = generators.flatMap((g) => (g.scriptMetrics ? [g.scriptMetrics()] : []));
  if (metrics.length === 0) return undefined;
  return { ownScenarios, checks: mergeChecks(lines.map((l) => l.checks)), metrics: mergeScriptMetrics(metrics) };
}

/**
 * How long a k6 second waits for its histogram line (printed 0.5 s after the second, beside the
 * dashboard's event for it) before it is merged without (then as the worst instance).
 */
const K6_HISTOGRAM_WAIT_MS = 2500;

/**
 * Follows one load generator: k6 through its web dashboard's event stream (and, with several
 * instances, its histogram lines on stdout: ../../../packages/scenarios/src/loadgen/k6/histogram-output.ts),
 * wrk through its JSON lines on stdout.
 */
function follow(
  ctx: RunContext,
  network: string,
  spec: PlannedContainer,
  container: StartedContainer,
  until: AbortSignal,
  namer: BackendNamer,
): Generator {
  const { deps } = ctx;
  const loadSeconds = ctx.run.workload.durationSeconds;
  if (spec.component === "wrk") {
    const reader = new WrkOutputReader();
    let totals: TRunSummary | undefined;
    async function* updates(): AsyncIterable<LoadUpdate> {
      for await (const line of deps.provisioner.followOutput(container.id, until)) {
        const update = reader.push(line);
        if (update?.type === "stop") totals = wrkTotals(update.summary, loadSeconds);
        if (update) yield update;
        if (update?.type === "stop") return;
      }
      until.throwIfAborted();
    }
    return { container, title: spec.title, updates: updates(), totals: async () => totals && namer.name(totals) };
  }
  const reader = new K6EventReader(ctx.run.workload.protocol);
  // One instance keeps the dashboard's own percentiles; several merge their histograms.
  const histograms = ctx.run.workload.loadgenInstances > 1 ? new K6Histograms() : undefined;
  const histogramLines = histograms && followHistograms(ctx, container, until, histograms);
  async function* updates(): AsyncIterable<LoadUpdate> {
    const dashboard = await deps.provisioner.dialAddress(container.id, network, K6_DASHBOARD_PORT);
    const events = sseEvents(`http://${hostPort(dashboard)}/events`, {
      signal: until,
      connectTimeoutMs: deps.timeouts.k6ConnectMs,
      onConnected: (attempts, ms) =>
        deps.log.info(`connected to ${spec.title}'s dashboard`, { runId: ctx.runId, container: container.name, attempts, ms }),
      beforeRetry: async () => {
        const state = await deps.provisioner.inspect(container.id, network);
        if (!state.running) throw new Error(await describeExit(deps, container.id, `${spec.title} (${container.name})`, network));
      },
    });
    // Leaving the loop closes the stream: k6 waits for its dashboard clients to go before it exits.
    for await (const { event, data } of events) {
      const update = reader.push(event ?? "message", data);
      if (update?.type === "sample" && histograms) {
        const histogram = mergeableSecond(await histograms.waitSecond(update.sample.t, K6_HISTOGRAM_WAIT_MS), update.sample.requests);
        yield histogram ? { ...update, sample: { ...update.sample, histogram } } : update;
      } else if (update) yield update;
      if (update?.type === "stop") return;
    }
  }
  return {
    container,
    title: spec.title,
    updates: updates(),
    totals: async (seconds) => {
      const totals = reader.summary(seconds);
      // k6 has exited: its output is complete (or, cut short, has no total line).
      await histogramLines;
      const histogram = histograms?.total();
      return totals && namer.name(histogram ? { ...totals, histogram } : totals);
    },
    ...(ctx.run.workload.script !== undefined && { scriptMetrics: () => reader.scriptMetrics() }),
  };
}

/** Reads a k6 instance's histogram lines from its stdout until it exits (or the load is stopped); never rejects. */
async function followHistograms(ctx: RunContext, container: StartedContainer, until: AbortSignal, histograms: K6Histograms): Promise<void> {
  try {
    for await (const line of ctx.deps.provisioner.followOutput(container.id, until)) histograms.push(line);
  } catch (err) {
    if (!until.aborted)
      ctx.deps.log.warn("k6's histogram lines could not be read", { container: container.name, error: errorMessage(err) });
  } finally {
    histograms.end();
  }
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
    await ctx.report.event(
      "warn",
      `stopped following the consumers after the load with ${figures.lag() ?? 0} event(s) left: ${errorMessage(ctx.signal.reason)}`,
    );
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
