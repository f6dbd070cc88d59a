import { setTimeout as sleep } from "node:timers/promises";
import type { ExperimentView, RunView } from "./api-types";
import { call, type Lab } from "./client";
import {
  experimentProgressLine,
  experimentStepLine,
  recentRps,
  runProgressLine,
  runStepLine,
  type ExperimentProgress,
  type RunProgress,
} from "./format";

const TERMINAL = new Set(["succeeded", "failed", "cancelled", "interrupted"]);

/** Where progress goes while waiting: stderr, one updating line on a terminal, a line per change in a log, nothing with --json. */
export type Progress = { mode: "tty" | "lines" | "quiet"; write: (text: string) => void; now: () => number; pollMs: number };

/**
 * A progress reporter: draws the line on a terminal; in a log, prints a line when `key` changes
 * (a run's step, an experiment's finished runs). Clears the terminal's line at the end.
 */
function reporter<P>(progress: Progress, line: (p: P) => string, step: (p: P) => string, key: (p: P) => string) {
  let last: string | undefined;
  return {
    show(p: P) {
      if (progress.mode === "tty") progress.write(`\r\x1b[2K${line(p)}`);
      else if (progress.mode === "lines" && key(p) !== last) {
        progress.write(`${step(p)}\n`);
        last = key(p);
      }
    },
    end() {
      if (progress.mode === "tty") progress.write("\r\x1b[2K");
    },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts (Ctrl-C). */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => {});
}

/**
 * Waits for a run to end, showing its step, the time waited and req/s from its latest seconds
 * (read only during the load). Returns the run as it ended, or null when `signal` aborted first:
 * the run goes on.
 */
export async function waitForRun(lab: Lab, id: string, progress: Progress, signal: AbortSignal): Promise<RunView | null> {
  const start = progress.now();
  const show = reporter<RunProgress>(progress, runProgressLine, runStepLine, (p) => `${p.status} ${p.step}`);
  let rps: number | null = null;
  let polls = 0;
  try {
    while (!signal.aborted) {
      const run = await call(lab, () => lab.api.GET("/runs/{id}", { params: { path: { id } }, signal }));
      if (TERMINAL.has(run.status)) return run;
      // On a terminal, during the load, every other poll: req/s of the latest few seconds.
      if (run.step === "running" && progress.mode === "tty" && polls++ % 2 === 0) {
        const samples = await call(lab, () =>
          lab.api.GET("/runs/{id}/samples", { params: { path: { id }, query: { points: 100 } }, signal }),
        );
        rps = recentRps(samples) ?? rps;
      }
      show.show({
        id,
        status: run.status,
        step: run.step,
        stepDetail: run.stepDetail,
        elapsedSeconds: (progress.now() - start) / 1000,
        rps: run.step === "running" || run.step === "collecting" ? rps : null,
      });
      await pause(progress.pollMs, signal);
    }
    return null;
  } catch (err) {
    if (signal.aborted) return null;
    throw err;
  } finally {
    show.end();
  }
}

/** Waits for an experiment to end (every run finished, or cancelled), showing which run of how many and the time left. */
export async function waitForExperiment(lab: Lab, id: string, progress: Progress, signal: AbortSignal): Promise<ExperimentView | null> {
  const start = progress.now();
  const show = reporter<ExperimentProgress>(progress, experimentProgressLine, experimentStepLine, (p) => `${p.status} ${p.finished}`);
  try {
    while (!signal.aborted) {
      const view = await call(lab, () => lab.api.GET("/experiments/{id}", { params: { path: { id } }, signal }));
      if (view.status !== "queued" && view.status !== "running") return view;
      const p = view.progress;
      show.show({
        id,
        status: view.status,
        total: p.total,
        finished: p.finished,
        succeeded: p.succeeded,
        current: p.current,
        secondsLeft: p.secondsLeft,
        elapsedSeconds: (progress.now() - start) / 1000,
      });
      await pause(progress.pollMs * 2, signal);
    }
    return null;
  } catch (err) {
    if (signal.aborted) return null;
    throw err;
  } finally {
    show.end();
  }
}
