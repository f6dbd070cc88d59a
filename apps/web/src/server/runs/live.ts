import { EventEmitter, on } from "node:events";
import type { TFigureSample } from "@scalelab/scenarios/messages";
import { isTerminal, type TSample } from "@scalelab/scenarios/contract";
import { downsampleContainerSeconds, downsampleFigures, downsampleSamples, median } from "@scalelab/scenarios/analysis";
import { runChannel } from "@scalelab/scenarios/messages";
import type { Deps } from "../runtime";
import { parseChannelMessage, type TChannelMessage } from "./messages";
import { assertRunExists, getRun, readContainerSeconds, readEvents, readFigures, readSamples, withImbalance } from "./service";
import type { TContainerSeconds, TRunEventView, TRunView } from "./types";

export type TLiveEvent =
  | {
      type: "snapshot";
      run: TRunView;
      /** The seconds so far, each with its imbalance; past SNAPSHOT_POINTS, min and max per bucket. */
      samples: TSample[];
      /** How many seconds were measured (samples holds fewer when downsampled). */
      seconds: number;
      containers: TContainerSeconds[];
      /** Each container's median CPU over the seconds so far (% of one core), from every second. */
      cpuMedian: Record<string, number>;
      /** The components' per-second figures so far, ordered by `t`. */
      figures: TFigureSample[];
      events: TRunEventView[];
      /** `containers` left out (the run page's server read of a finished run): read with `runs.containerSeconds` when needed. */
      containersLater?: true;
    }
  | TChannelMessage
  /** The run as stored once it reached a terminal status (with its summary). */
  | { type: "run"; run: TRunView };

export type TRunSnapshot = Extract<TLiveEvent, { type: "snapshot" }>;

/**
 * At most this many points per series in the snapshot, as many as the charts draw (charts.tsx
 * CHART_POINTS): a 1 h run's page loads 600 points per line, not 3,600. The live seconds that
 * follow are appended, and the charts downsample again.
 */
export const SNAPSHOT_POINTS = 600;

/** How often the stored status is re-read, in case a terminal status message was missed. */
const RECHECK_MS = 5_000;

/**
 * The live view of one run: its stored state first, then the worker's messages, until the run
 * is terminal. Subscribes before reading the database so that nothing published in between is lost.
 */
export async function* liveRun(deps: Deps, runId: string, signal: AbortSignal | undefined): AsyncGenerator<TLiveEvent> {
  const local = new EventEmitter();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort);
  const inbox = on(local, "item", { signal: stop.signal });
  const unlisten = await deps.channels.listen(runChannel(runId), (raw) => local.emit("item", raw));
  const recheck = setInterval(() => local.emit("item", null), RECHECK_MS);

  try {
    const snapshot = await runSnapshot(deps, runId);
    yield snapshot;
    if (isTerminal(snapshot.run.status)) return;

    for await (const [raw] of inbox as AsyncIterable<[string | null]>) {
      if (raw === null) {
        const current = await getRun(deps, runId);
        if (isTerminal(current.status)) {
          yield { type: "run", run: current };
          return;
        }
        continue;
      }
      const msg = parseChannelMessage(raw);
      if (!msg) continue;
      yield msg;
      if (msg.type === "status" && isTerminal(msg.status)) {
        yield { type: "run", run: await getRun(deps, runId) };
        return;
      }
    }
  } catch (err) {
    if (stop.signal.aborted) return;
    throw err;
  } finally {
    clearInterval(recheck);
    unlisten();
    signal?.removeEventListener("abort", onAbort);
    stop.abort();
  }
}

/**
 * The run's stored state, as the live view's first event carries it: the run page's server render
 * reads it too, so that a run's page comes with its charts' data instead of waiting for the stream.
 * `containersLater`: a run that has ended with its summary comes without its container readings
 * (its charts are below the first screen; half the snapshot of a 1 h run), only their CPU medians.
 */
export async function runSnapshot(deps: Deps, runId: string, options: { containersLater?: boolean } = {}): Promise<TRunSnapshot> {
  const run = await getRun(deps, runId);
  const later = options.containersLater === true && isTerminal(run.status) && run.summary !== null;
  const [samples, containers, figures, events] = await Promise.all([
    readSamples(deps, runId),
    readContainerSeconds(deps, runId),
    readFigures(deps, runId),
    readEvents(deps, runId),
  ]);
  return {
    type: "snapshot",
    run,
    samples: downsampleSamples(withImbalance(samples, run.topology), SNAPSHOT_POINTS),
    seconds: samples.length,
    containers: later ? [] : downsampleContainerSeconds(containers, SNAPSHOT_POINTS),
    cpuMedian: cpuMedians(containers),
    figures: downsampleFigures(figures, SNAPSHOT_POINTS),
    events,
    ...(later ? { containersLater: true as const } : {}),
  };
}

/** The run's container readings as the snapshot carries them (at most SNAPSHOT_POINTS per container). */
export async function runContainerSeconds(deps: Deps, runId: string): Promise<TContainerSeconds[]> {
  await assertRunExists(deps, runId);
  return downsampleContainerSeconds(await readContainerSeconds(deps, runId), SNAPSHOT_POINTS);
}

function cpuMedians(seconds: readonly TContainerSeconds[]): Record<string, number> {
  const readings = new Map<string, number[]>();
  for (const s of seconds)
    for (const c of s.containers) {
      const list = readings.get(c.container);
      if (list) list.push(c.cpuPct);
      else readings.set(c.container, [c.cpuPct]);
    }
  return Object.fromEntries([...readings].map(([name, values]) => [name, median(values)]));
}
