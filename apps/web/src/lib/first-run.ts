import { RUN_OVERHEAD_SECONDS } from "@scalelab/scenarios/experiments";
import { initialForm, type RunFormValues } from "./run-form";

/**
 * The home page's first run (`/runs/new?first=1`): the form's defaults made small, so that a newcomer's
 * first click of Start gives a finished run, with its charts and findings, in well under a minute.
 */
export function firstRunForm(): RunFormValues {
  const v = initialForm();
  v.name = "My first run";
  v.topology.service.replicas = 2;
  v.workload.vus = 2;
  v.workload.durationSeconds = 8;
  return v;
}

/** What the first run is, in one sentence, from its values: the text cannot drift from what it sends. */
export function firstRunSentence(v: RunFormValues = firstRunForm()): string {
  const s = v.topology.service;
  const w = v.workload;
  const seconds = w.durationSeconds ?? 0;
  const limit = s.cpus === undefined ? "" : ` limited to ${s.cpus} CPU each`;
  return (
    `${s.replicas} replicas of the lab's test service${limit}, ${v.topology.balancer.kind === "none" ? "" : `behind ${v.topology.balancer.kind}`}, ` +
    `loaded by ${w.loadgen} with ${w.vus} virtual users for ${seconds} s: about ${seconds + RUN_OVERHEAD_SECONDS} s in all.`
  );
}
