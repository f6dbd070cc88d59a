import { Db } from "@scalelab/db";
import { listEngines } from "@scalelab/db/engines";
import { ZEngineConfig } from "@scalelab/scenarios/contract";
import Docker from "dockerode";
import { errorMessage } from "./log";
import { withDeadlines } from "./provisioner/deadlines";
import { provisionerFor } from "./provisioner/factory";
import { LABELS, runLabels } from "@scalelab/scenarios/plan";
import { Logger } from "./log";
import { Provisioner } from "./provisioner/types";

/**
 * Removes this control plane's Docker objects of runs that are not active: not the one this
 * worker is running, and not marked running in the database (by another worker). Returns the
 * swept run ids.
 */
export async function sweep(opts: {
  provisioner: Provisioner;
  db: Db;
  instance: string;
  current: () => string | undefined;
  log: Logger;
}): Promise<string[]> {
  const current = opts.current();
  const ours = { [LABELS.managed]: "true", [LABELS.instance]: opts.instance };
  const candidates = [...(await opts.provisioner.labelValues(LABELS.run, ours))].filter((id) => id !== current);
  if (candidates.length === 0) return [];
  const running = await opts.db.run.findMany({ where: { id: { in: candidates }, status: "running" }, select: { id: true } });
  const active = new Set(running.map((r) => r.id));
  const swept = candidates.filter((id) => !active.has(id));
  for (const id of swept) {
    const removed = await opts.provisioner.removeByLabel(runLabels(id));
    opts.log.info("swept leftovers of an inactive run", { runId: id, ...removed });
  }
  return swept;
}

/**
 * The same sweep on every stored engine (Swarm clusters: services, containers on every node,
 * configs, networks), one after the other; an engine that cannot be reached or swept is logged
 * and tried again at the next sweep. Never throws.
 */
export async function sweepEngines(opts: {
  db: Db;
  docker: Docker;
  instance: string;
  current: () => string | undefined;
  log: Logger;
  callMs: number;
}): Promise<string[]> {
  const swept: string[] = [];
  try {
    for (const row of await listEngines(opts.db)) {
      const config = ZEngineConfig.safeParse(row.config);
      if (!config.success) continue;
      try {
        const provisioner = withDeadlines(provisionerFor(config.data, opts.docker), opts.callMs);
        swept.push(...(await sweep({ ...opts, provisioner })));
      } catch (err) {
        opts.log.warn("sweep of an engine failed", { engine: row.name, error: errorMessage(err) });
      }
    }
  } catch (err) {
    opts.log.warn("sweep of the engines failed", { error: errorMessage(err) });
  }
  return swept;
}
