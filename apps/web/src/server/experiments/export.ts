import { experimentRunsCsv, fileName, samplesCsv } from "@scalelab/scenarios/experiments";
import { experimentReportHtml } from "@scalelab/scenarios/experiments";
import { ZRunSummary } from "@scalelab/scenarios/contract";
import { z } from "zod";
import type { Deps } from "../runtime";
import type { TFile } from "../rest/file";
import { getContainers, getFigures, getRun, getSamples, readSamplesOf } from "../runs/service";
import { getExperiment } from "./service";

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export const ZExperimentExportInput = z.object({
  id: z.string().min(1).max(64),
  format: z.enum(["csv", "json", "html"], { error: "format must be one of: csv, json, html" }).default("json"),
  /** For csv: one row per run (its whole-run figures) or one per second of every run. */
  table: z.enum(["runs", "samples"], { error: "table must be one of: runs, samples" }).default("runs"),
});

export async function exportExperiment(deps: Deps, input: z.infer<typeof ZExperimentExportInput>): Promise<TFile> {
  const view = await getExperiment(deps, input.id);
  if (input.format === "html") {
    return {
      contentType: "text/html; charset=utf-8",
      filename: fileName(view.name, "html"),
      body: experimentReportHtml(view, { generatedAt: new Date().toISOString() }),
    };
  }
  const rows = await deps.db.run.findMany({ where: { experimentId: input.id }, select: { id: true, summary: true } });
  const summaries = new Map(rows.map((r) => [r.id, ZRunSummary.safeParse(r.summary).data ?? null]));
  const runs = view.variants.flatMap((v) =>
    v.runs.map((r) => ({ ...r, variant: v.name, axes: v.axes, summary: summaries.get(r.id) ?? null })),
  );
  if (input.format === "csv" && input.table === "runs") {
    return {
      contentType: "text/csv; charset=utf-8",
      filename: fileName(`${view.name}-runs`, "csv"),
      body: experimentRunsCsv(
        view.name,
        runs.map((r) => ({
          runId: r.id,
          variant: r.variant,
          axes: r.axes,
          repetition: r.repetition,
          attempt: r.attempt,
          status: r.status,
          summary: r.summary,
        })),
      ),
    };
  }
  const byRun = await readSamplesOf(
    deps,
    runs.map((r) => r.id),
  );
  const withSamples = runs.map((r) => ({ ...r, samples: byRun.get(r.id) ?? [] }));
  if (input.format === "csv") {
    return {
      contentType: "text/csv; charset=utf-8",
      filename: fileName(`${view.name}-samples`, "csv"),
      body: samplesCsv(withSamples.map((r) => ({ runId: r.id, variant: r.variant, repetition: r.repetition, samples: r.samples }))),
    };
  }
  return {
    contentType: "application/json; charset=utf-8",
    filename: fileName(view.name, "json"),
    body: json({ experiment: view, runs: withSamples }),
  };
}

export const ZRunExportInput = z.object({
  id: z.string().min(1).max(64),
  format: z.enum(["csv", "json"], { error: "format must be one of: csv, json" }).default("json"),
});

export async function exportRun(deps: Deps, input: z.infer<typeof ZRunExportInput>): Promise<TFile> {
  const run = await getRun(deps, input.id);
  const samples = await getSamples(deps, input.id);
  const name = run.name ?? `run-${run.id.slice(0, 8)}`;
  if (input.format === "csv") {
    return {
      contentType: "text/csv; charset=utf-8",
      filename: fileName(`${name}-samples`, "csv"),
      body: samplesCsv([{ runId: run.id, samples }]),
    };
  }
  const [containers, figures] = await Promise.all([getContainers(deps, input.id), getFigures(deps, input.id)]);
  return {
    contentType: "application/json; charset=utf-8",
    filename: fileName(name, "json"),
    body: json({ run, samples, containers, figures }),
  };
}
