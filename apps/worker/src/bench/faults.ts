/**
 * Experiment 6 of EXPERIMENTS.md as the write-up ran it, through the lab's REST API like a user's
 * script would (`bash scripts/up.sh` first): nginx round robin over 4 replicas, max_fails 1,
 * fail_timeout 10 s, 8 req/s (open model) for 180 s; stop replica 3 at 30 s and replica 4 at 60 s,
 * start 3 at 90 s and 4 at 120 s. Over HTTP and gRPC, with retryNextUpstream true and false.
 * Prints each fault's applied time (how late), failed requests, shift and return, and a compare link.
 *
 *   DATABASE_URL=… REDIS_URL=… pnpm --filter @scalelab/worker bench:faults [--protocols http,grpc] [--retry true,false] [--seconds 180]
 */
import { faultLabel, TFaultInput, ZFaultRecord } from "@scalelab/scenarios/contract";
import { TRunCreateInput, TRunSummary } from "@scalelab/scenarios/contract";
import { median } from "@scalelab/scenarios/analysis";
import { openBench } from "./lib";

const { values, WEB, fmt, startRun, waitDone, api } = await openBench({
  protocols: { type: "string", default: "http,grpc" },
  retry: { type: "string", default: "true,false" },
  seconds: { type: "string", default: "180" },
});
const opts = values as Record<string, string>;
const protocols = opts.protocols!.split(",") as ("http" | "grpc")[];
const retries = opts.retry!.split(",").map((r) => r === "true");
const seconds = Number(opts.seconds);
// The write-up's seconds, scaled when a shorter run is asked for.
const at = (s: number) => Math.round((s / 180) * seconds);

const faults: TFaultInput[] = [
  { at: at(30), action: "stop", target: { role: "app", index: 2 } },
  { at: at(60), action: "stop", target: { role: "app", index: 3 } },
  { at: at(90), action: "start", target: { role: "app", index: 2 } },
  { at: at(120), action: "start", target: { role: "app", index: 3 } },
];

const body = (protocol: "http" | "grpc", retryNextUpstream: boolean): TRunCreateInput => ({
  name: `exp 6: ${protocol}, retryNextUpstream ${retryNextUpstream}`,
  topology: {
    balancer: { kind: "nginx", algorithm: "round_robin", maxFails: 1, failTimeoutSeconds: 10, retryNextUpstream },
    service: { replicas: 4 },
  },
  workload: { protocol, arrivalRate: 8, durationSeconds: seconds },
  faults,
});

const lags: number[] = [];
const ids: string[] = [];
for (const protocol of protocols) {
  for (const retry of retries) {
    const { id } = await startRun(body(protocol, retry));
    ids.push(id);
    const run = await waitDone(id);
    const view = await api<{ faults: unknown[]; summary: TRunSummary }>(`/runs/${id}`);
    const records = ZFaultRecord.array().parse(view.faults);
    const s = run.summary!;
    console.log(
      `\n${protocol}, retryNextUpstream ${retry} (${WEB}/runs/${id}): ${s.requests} requests, ${s.errors} failed, errors by kind ${JSON.stringify(s.errorKinds ?? {})}, imbalance ${JSON.stringify(s.imbalance)}`,
    );
    console.log("| fault | applied at | late | took | failed requests | shift s | return s |");
    console.log("| --- | --- | --- | --- | --- | --- | --- |");
    for (const [i, r] of records.entries()) {
      const e = s.faults?.[i];
      if (r.actual) lags.push(r.actual.lagMs);
      console.log(
        `| ${faultLabel(r)} | ${r.actual ? fmt(r.actual.atMs / 1000, 3) : "—"} s | ${r.actual?.lagMs ?? "—"} ms | ${r.actual?.tookMs ?? "—"} ms | ${e?.failedRequests ?? "—"} | ${e?.shiftSeconds ?? "—"} | ${e?.returnSeconds ?? "—"} |`,
      );
    }
  }
}
console.log(`\nfaults applied: ${lags.length}, lag median ${median(lags)} ms, max ${Math.max(...lags)} ms`);
console.log(`compare: ${WEB}/compare?ids=${ids.join(",")}`);
process.exit(0);
