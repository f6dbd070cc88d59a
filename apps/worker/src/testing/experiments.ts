import { randomUUID } from "node:crypto";
import { Prisma } from "@scalelab/db";
import { runJob } from "@scalelab/scenarios/messages";
import { expandExperiment, experimentRecords, ZExperimentCreate, TExperimentCreateInput } from "@scalelab/scenarios/experiments";
import { isTerminal, TRunStatus } from "@scalelab/scenarios/contract";
import { waitFor, Lab } from "./lab";

/** An experiment stored and queued as the web service does it (experimentRecords), and a wait for all its runs to end. */
export function experimentHelpers(lab: () => Lab) {
  async function createExperiment(input: TExperimentCreateInput) {
    const def = ZExperimentCreate.parse(input);
    const expansion = expandExperiment(def);
    if (!expansion.ok) throw new Error(JSON.stringify(expansion.issues));
    const id = randomUUID();
    const { experiment, runs } = experimentRecords(def, expansion, { experiment: id, run: randomUUID });
    const { db, queue } = lab();
    await db.experiment.create({
      data: {
        ...experiment,
        definition: experiment.definition as Prisma.InputJsonValue,
        variants: experiment.variants as Prisma.InputJsonValue,
      },
    });
    await db.run.createMany({ data: runs });
    for (const r of runs) {
      const job = runJob(r.id);
      await queue.add(job.name, job.data, job.opts);
    }
    return { id, experiment, runIds: runs.map((r) => r.id) };
  }

  async function finishedRuns(experimentId: string, atLeast: number) {
    return waitFor(`experiment ${experimentId} to finish`, 300_000, async () => {
      const runs = await lab().db.run.findMany({ where: { experimentId }, orderBy: [{ createdAt: "asc" }, { attempt: "asc" }] });
      return runs.length >= atLeast && runs.every((r) => isTerminal(r.status as TRunStatus)) ? runs : undefined;
    });
  }

  return { createExperiment, finishedRuns };
}
