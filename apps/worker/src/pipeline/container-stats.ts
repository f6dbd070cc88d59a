import { setMaxListeners } from "node:events";
import { containerUsage, ContainerUsage, DockerStatsReading } from "@scalelab/scenarios/analysis";
import { errorMessage, Logger } from "../log";
import { Provisioner, StartedContainer } from "../provisioner/types";
import { deadline, sleep } from "./timing";

const STOP_MS = 5_000;
/** Between two attempts to reopen a container's stats stream that ended. */
const REOPEN_MS = 1_000;
/** How long after a second was handed over a late reading of it is still added (and the second handed over again). */
const LATE_SECONDS = 3;
/** A reading whose `read` time is further than this from its arrival is placed by its arrival. */
const CLOCK_SLACK_MS = 3_000;

export type ContainerRow = { container: string; role: string } & ContainerUsage;

/**
 * Follows Docker's stats stream of every container from now on and, once `begin` gives the load's
 * start, hands the rows of each second to `onTick` (t = whole seconds since that start, as for the
 * k6 samples). A reading covers the interval since the previous one (`preread` to `read`, about a
 * second) and goes to the second that holds the middle of it, not to the one in which it arrived:
 * a reading delayed past a tick (a busy engine or event loop) then neither pushes its neighbour out
 * nor leaves a gap. A second is handed over once it is complete, and again with every row if a late
 * reading of it arrives within `LATE_SECONDS`. A second in which Docker read nothing of a container
 * (it was stopped, or the engine's readings drifted over a second) has no row for it, rather than a
 * repeated one.
 *
 * Docker 20.10 keeps a stream open across stop, kill, start and restart (empty readings while the
 * container is down; a paused one goes on with frozen counters: 0 % CPU, no traffic) and ends it
 * when the container is removed or the engine drops it. A stream that ends while the follower runs
 * is reopened every `reopenMs`, and the log says so once per change, not once per attempt.
 */
export function followContainerStats(opts: {
  provisioner: Provisioner;
  containers: StartedContainer[];
  onTick: (t: number, rows: ContainerRow[]) => Promise<void>;
  log: Logger;
  reopenMs?: number;
}) {
  const ctl = new AbortController();
  // One stream per container listens to it (16 replicas, a balancer, stores, load generators).
  setMaxListeners(0, ctl.signal);
  let startMs: number | undefined;
  /** Rows by second, kept until LATE_SECONDS after it was handed over. */
  const seconds = new Map<number, { rows: Map<string, ContainerRow>; sent: boolean }>();
  let handedUpTo = -1;
  /** Readings that came before `begin` (the load's start is known a moment after it): placed then. */
  let early: { at: number; row: ContainerRow }[] = [];

  const place = (at: number, row: ContainerRow) => {
    if (startMs === undefined) {
      if (early.length > 0 && early[0]!.at < at - LATE_SECONDS * 1000) early = early.filter((e) => e.at >= at - LATE_SECONDS * 1000);
      early.push({ at, row });
      return;
    }
    const t = Math.floor((at - startMs) / 1000);
    if (t < 0 || t < handedUpTo - LATE_SECONDS) return;
    let second = seconds.get(t);
    if (!second) seconds.set(t, (second = { rows: new Map(), sent: false }));
    second.rows.set(row.container, row);
    second.sent = false;
  };

  const record = (c: StartedContainer, reading: DockerStatsReading, usage: ContainerUsage) => {
    const now = Date.now();
    const readMs = Date.parse(reading.read ?? "");
    const span = readMs - Date.parse(reading.preread ?? "");
    const middle = readMs - (span > 0 && span < CLOCK_SLACK_MS ? span / 2 : 500);
    // The engine's clock is the host's; a reading stamped far from its arrival goes by its arrival.
    place(Math.abs(readMs - now) < CLOCK_SLACK_MS ? middle : now - 500, { container: c.name, role: c.role, ...usage });
  };

  const follow = async (c: StartedContainer) => {
    let lost = false;
    while (!ctl.signal.aborted) {
      // Docker sends previous CPU counters with each reading but no previous network counters.
      let previous: DockerStatsReading | undefined;
      let error: string | undefined;
      try {
        for await (const reading of opts.provisioner.stats(c.id, ctl.signal)) {
          if (lost) opts.log.info("docker stats stream reopened", { container: c.name });
          lost = false;
          const usage = containerUsage(reading, previous);
          previous = reading;
          if (usage) record(c, reading, usage);
        }
      } catch (err) {
        error = errorMessage(err);
      }
      if (ctl.signal.aborted) return;
      const retryMs = opts.reopenMs ?? REOPEN_MS;
      if (!lost)
        opts.log.warn("docker stats stream ended or could not be opened; retrying", {
          container: c.name,
          retryMs,
          ...(error && { error }),
        });
      lost = true;
      await sleep(retryMs, ctl.signal).catch(() => undefined);
    }
  };
  const readers = opts.containers.map(follow);
  let timer: NodeJS.Timeout | undefined;
  let writes = Promise.resolve();

  /** Hands over every complete second not handed over yet, or with a row added since, in order. */
  const tick = () => {
    if (startMs === undefined) return;
    const complete = Math.floor((Date.now() - startMs) / 1000) - 1;
    for (const t of [...seconds.keys()].sort((a, b) => a - b)) {
      const second = seconds.get(t)!;
      if (t < complete - LATE_SECONDS) seconds.delete(t);
      if (t > complete || second.sent) continue;
      second.sent = true;
      handedUpTo = Math.max(handedUpTo, t);
      const rows = [...second.rows.values()];
      writes = writes
        .then(() => opts.onTick(t, rows))
        .catch((err) => opts.log.warn("could not record container stats", { t, error: errorMessage(err) }));
    }
  };

  return {
    begin(at: number) {
      if (startMs !== undefined) return;
      startMs = at;
      for (const e of early) place(e.at, e.row);
      early = [];
      timer = setInterval(tick, 1000);
    },
    async stop() {
      clearInterval(timer);
      ctl.abort();
      // Bounded: a stats request the engine never answers must not hold the run.
      await deadline(Promise.all(readers), STOP_MS, "the Docker stats streams").catch((err) => opts.log.warn(errorMessage(err)));
      tick();
      await deadline(writes, STOP_MS, "writing container stats").catch((err) => opts.log.warn(errorMessage(err)));
    },
  };
}
