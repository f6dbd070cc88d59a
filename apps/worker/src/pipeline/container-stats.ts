import { setMaxListeners } from "node:events";
import { containerUsage, type ContainerUsage, type DockerStatsReading } from "@scalelab/scenarios/stats";
import { errorMessage, type Logger } from "../log";
import type { Provisioner, StartedContainer } from "../provisioner/types";
import { deadline } from "./context";

const STOP_MS = 5_000;

export type ContainerRow = { container: string; role: string } & ContainerUsage;

/**
 * Follows Docker's stats stream of every container from now on and, once `begin` gives the load's
 * start, hands one row per container and second to `onTick` (t = whole seconds since that start,
 * as for the k6 samples). A second in which Docker sent no new reading for a container has no row
 * for it, rather than a repeated one.
 */
export function followContainerStats(opts: {
  provisioner: Provisioner;
  containers: StartedContainer[];
  onTick: (t: number, rows: ContainerRow[]) => Promise<void>;
  log: Logger;
}) {
  const ctl = new AbortController();
  // One stream per container listens to it (16 replicas, a balancer, stores, load generators).
  setMaxListeners(0, ctl.signal);
  const latest = new Map<StartedContainer, DockerStatsReading>();
  const readers = opts.containers.map(async (c) => {
    try {
      for await (const reading of opts.provisioner.stats(c.id, ctl.signal)) latest.set(c, reading);
    } catch (err) {
      if (!ctl.signal.aborted) opts.log.warn("docker stats stream ended", { container: c.name, error: errorMessage(err) });
    }
  });
  let timer: NodeJS.Timeout | undefined;
  let writes = Promise.resolve();
  let lastT = -1;

  const tick = (startMs: number) => {
    const t = Math.max(lastT + 1, Math.round((Date.now() - startMs) / 1000) - 1);
    lastT = t;
    const rows: ContainerRow[] = [];
    for (const c of opts.containers) {
      const reading = latest.get(c);
      latest.delete(c);
      const usage = reading && containerUsage(reading);
      if (usage) rows.push({ container: c.name, role: c.role, ...usage });
    }
    if (rows.length === 0) return;
    writes = writes
      .then(() => opts.onTick(t, rows))
      .catch((err) => opts.log.warn("could not record container stats", { t, error: errorMessage(err) }));
  };

  return {
    begin(startMs: number) {
      timer ??= setInterval(tick, 1000, startMs);
    },
    async stop() {
      clearInterval(timer);
      ctl.abort();
      // Bounded: a stats request the engine never answers must not hold the run.
      await deadline(Promise.all(readers), STOP_MS, "the Docker stats streams").catch((err) => opts.log.warn(errorMessage(err)));
      await deadline(writes, STOP_MS, "writing container stats").catch((err) => opts.log.warn(errorMessage(err)));
    },
  };
}
