import { TRunSummary } from "../contract/results";
import { WithHistogram } from "./histogram";
import { k6HistogramFlags } from "./k6/histogram-output";
import { customWorkload, TWorkload } from "../contract/workload";
import { LOADGEN_ROLE } from "../names";
import { ENDPOINT_METHODS, ENDPOINT_PATHS, loadTarget } from "./endpoints";
import { K6_ENV, k6ExtraFiles, renderK6Script } from "./k6/script";
import { errorRate, perSecond } from "../analysis/stats";
import { renderWrkRequestScript, renderWrkScript, unanswered, wrkBackendHeader, wrkCommand, WrkSummary } from "./wrk/wrk";
import { K6_INSPECT_COMMAND, K6_SCRIPT_FLAGS, K6_TARGET_ENV, K6_USER_SCRIPT_PATH, renderK6Wrapper } from "./k6/user-script";
import { ComponentModule, PlanContext, PlannedContainer } from "../components/types";
import { servicePort } from "../components/service/config";
import { backendSource } from "../contract/backends";

export const K6_SCRIPT_PATH = "/scalelab/load.js";
export const WRK_SCRIPT_PATH = "/scalelab/load.lua";

/** `n` split into `parts` whole shares that differ by at most one, the larger first. */
export const share = (n: number, parts: number, i: number): number => Math.floor(n / parts) + (i < n % parts ? 1 : 0);

/** wrk's threads per instance when the workload does not say: one per CPU of its limit, rounded up, at most one per connection. */
export const wrkThreads = (w: TWorkload, connections: number): number => Math.min(w.threads ?? Math.ceil(w.loadgenCpus), connections);

/**
 * The part of the workload that load-generator instance `i` of `loadgenInstances` runs: VUs, the
 * arrival rate, maxVUs or connections split evenly (each instance at least one, which the schema
 * guarantees), everything else as given.
 */
export function instanceWorkload(w: TWorkload, i: number): TWorkload {
  const n = w.loadgenInstances;
  if (n === 1) return w;
  return {
    ...w,
    ...(w.vus !== undefined && { vus: share(w.vus, n, i) }),
    ...(w.arrivalRate !== undefined && { arrivalRate: share(w.arrivalRate, n, i) }),
    ...(w.maxVus !== undefined && { maxVus: Math.max(1, share(w.maxVus, n, i)) }),
    ...(w.connections !== undefined && { connections: share(w.connections, n, i) }),
  };
}

/**
 * The load generators on the run network, aimed at the balancer (or the service's shared alias
 * without one); started by the load step, not with the topology. One container per instance.
 */
export function planLoadgens({ run, container }: PlanContext): PlannedContainer[] {
  const w = run.workload;
  const target = loadTarget(run.topology.balancer.kind, servicePort(run.topology.service));
  const source = backendSource(run);
  return Array.from({ length: w.loadgenInstances }, (_, index) => {
    const part = instanceWorkload(w, index);
    const common = { index, role: LOADGEN_ROLE, hostname: `${LOADGEN_ROLE}-${index}`, cpus: w.loadgenCpus, tier: 3, ready: [] };
    if (w.loadgen === "wrk") {
      const connections = part.connections!;
      const request = w.request;
      return container({
        ...common,
        component: "wrk",
        title: w.loadgenInstances > 1 ? `wrk ${index + 1}` : "wrk",
        image: "wrk",
        cmd: wrkCommand({
          target,
          // The user's path is the script's (wrk.path): the command line keeps to the lab's characters.
          path: request ? "/" : ENDPOINT_PATHS[w.endpoint],
          method: request ? request.method : ENDPOINT_METHODS[w.endpoint],
          threads: wrkThreads(w, connections),
          connections,
          durationSeconds: w.durationSeconds,
          timeoutMs: w.requestTimeoutMs,
          scriptPath: WRK_SCRIPT_PATH,
          backendHeader: wrkBackendHeader(source),
        }),
        files: [
          {
            path: WRK_SCRIPT_PATH,
            title: "wrk script",
            content: request ? renderWrkRequestScript(request) : renderWrkScript({ method: ENDPOINT_METHODS[w.endpoint] }),
          },
        ],
      });
    }
    const k6 = { ...common, component: "k6", title: w.loadgenInstances > 1 ? `k6 ${index + 1}` : "k6", image: "k6" as const };
    if (w.script !== undefined) {
      // The whole workload in every instance: k6's execution segments give each its share of any scenario, the user's included.
      return container({
        ...k6,
        env: { ...K6_ENV, [K6_TARGET_ENV]: target },
        cmd: [
          "run",
          "--no-color",
          "--quiet",
          ...K6_SCRIPT_FLAGS,
          ...k6HistogramFlags(w.protocol),
          ...executionSegment(index, w.loadgenInstances),
          K6_SCRIPT_PATH,
        ],
        files: [
          { path: K6_SCRIPT_PATH, title: "k6 wrapper", content: renderK6Wrapper(w, source) },
          { path: K6_USER_SCRIPT_PATH, title: "k6 script (yours)", content: w.script },
        ],
      });
    }
    return container({
      ...k6,
      env: { ...K6_ENV },
      cmd: ["run", "--no-color", "--quiet", ...k6HistogramFlags(w.protocol), K6_SCRIPT_PATH],
      files: [{ path: K6_SCRIPT_PATH, title: "k6 script", content: renderK6Script(part, target, source) }, ...k6ExtraFiles(w)],
    });
  });
}

/**
 * The check of a user's script before the run's containers start: k6 inspect on the first load
 * generator's files, in a container of its own without a network (the worker removes it).
 */
export function planScriptCheck(loadgen: PlannedContainer): PlannedContainer {
  return {
    ...loadgen,
    name: `${loadgen.name}-check`,
    title: "the script check (k6 inspect)",
    aliases: [],
    cmd: K6_INSPECT_COMMAND(K6_SCRIPT_PATH),
  };
}

/** k6's flags that make instance `i` of `n` run its share of every scenario; none for a single instance. */
export function executionSegment(i: number, n: number): string[] {
  if (n === 1) return [];
  const at = (k: number) => (k === 0 ? "0" : k === n ? "1" : `${k}/${n}`);
  return [
    "--execution-segment",
    `${at(i)}:${at(i + 1)}`,
    "--execution-segment-sequence",
    Array.from({ length: n + 1 }, (_, k) => at(k)).join(","),
  ];
}

/** What the load sends, for the setup: the endpoint, the request, the mix or the script (and whose scenarios, once known). */
export function describeLoad(
  w: Pick<TWorkload, "endpoint" | "protocol" | "request" | "requests" | "script">,
  ownScenarios?: boolean,
): string {
  switch (customWorkload(w)) {
    case "request":
      return `${w.request!.method} ${w.request!.path}`;
    case "requests":
      return `mix of ${w.requests!.length} request${w.requests!.length === 1 ? "" : "s"}`;
    case "script": {
      const kb = new TextEncoder().encode(w.script!).length / 1024;
      const scenarios = ownScenarios === undefined ? "" : ownScenarios ? "; scenarios from the script" : "; the lab's scenario";
      return `k6 script (${kb < 10 ? kb.toFixed(1) : Math.round(kb)} KB${scenarios})`;
    }
    default:
      return `${w.endpoint}${w.protocol === "grpc" ? " (gRPC)" : ""}`;
  }
}

/** The generator's image; its containers are planned by `planLoadgens` for the load step. */
export const loadgen: ComponentModule = {
  kind: "loadgen",
  slot: "loadgen",
  images: (run) => [run.workload.loadgen],
  plan: () => [],
  roles: (run) => [
    { role: LOADGEN_ROLE, count: run.workload.loadgenInstances, incoming: false, path: "workload", cpus: run.workload.loadgenCpus },
  ],
  presentation: { [LOADGEN_ROLE]: { one: "load generator", many: "load generators", column: 0, color: "#495057", label: "title" } },
  setup: [
    { key: "endpoint", label: "Endpoint", show: (s) => describeLoad(s.workload, s.script?.ownScenarios) },
    {
      key: "loadgen",
      label: "Load generator",
      show: ({ workload: w }) =>
        `${w.loadgenInstances > 1 ? `${w.loadgenInstances} × ` : ""}${w.loadgen ?? "k6"}, ${w.loadgenCpus} CPU${w.loadgenInstances > 1 ? " each" : ""}`,
    },
    {
      key: "load",
      label: "Load",
      show: ({ workload: w, script }) =>
        script?.ownScenarios
          ? "the script's scenarios"
          : w.loadgen === "wrk"
            ? `${w.connections} connections, ${wrkThreads(w, w.connections ?? 1)} thread(s) per instance (closed)`
            : w.arrivalRate !== undefined
              ? `${w.arrivalRate} req/s (open)`
              : `${w.vus ?? "?"} VUs (closed)`,
    },
    { key: "duration", label: "Duration", show: (s) => (s.script?.ownScenarios ? "the script's" : `${s.workload.durationSeconds} s`) },
  ],
};

/** wrk's whole run as the lab's summary; rates over the configured duration and failed connections counted as failed requests, as for k6. */
export function wrkTotals(s: WrkSummary, loadSeconds: number): WithHistogram<TRunSummary> {
  const requests = s.requests + unanswered(s.errorsByKind);
  return {
    requests,
    rps: perSecond(requests, loadSeconds),
    errors: s.errors,
    errorRate: errorRate(s.errors, requests),
    latencyMs: s.latencyMs ?? { avg: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 },
    durationSeconds: loadSeconds,
    backends: s.backends,
    ...(s.backendStats && { backendStats: s.backendStats }),
    ...(s.errorKinds && { errorKinds: s.errorKinds }),
    ...(s.histogram && { histogram: s.histogram }),
  };
}
