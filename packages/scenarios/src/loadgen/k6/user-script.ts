import { z } from "zod";
import { LIMITS } from "../../contract/fields";
import { TScriptSummary } from "../../contract/results";
import { TWorkload } from "../../contract/workload";
import { END_TAIL_SECONDS, k6BackendCode, k6Scenario } from "./script";
import { BackendSource } from "../../contract/backends";

/*
 * workload.script: the user's own k6 script, written as it is to USER_SCRIPT_PATH beside the lab's
 * wrapper (the container's entry script). The wrapper
 *   - re-exports everything of the user's module (`export * from "./user.js"`: setup, the `exec`
 *     functions of named scenarios); its own `options`, `default`, `teardown` and `handleSummary`
 *     win over the user's of the same name;
 *   - patches the functions of `k6/http`'s default export, which the user's module shares (named
 *     imports such as `import { get } from "k6/http"` included: k6 v1.4.2 reads them through it), so
 *     that every response is counted per backend as the lab's own script counts it;
 *   - runs the lab's scenario (workload.vus or arrivalRate, durationSeconds) unless the user's
 *     `options.scenarios` declares some; the user's other options (thresholds, ...) are kept, its
 *     shortcuts (vus, duration, iterations, stages) dropped when the lab's scenario runs;
 *   - calls the user's teardown, then idles for the dashboard's last bucket (END_TAIL_SECONDS);
 *   - prints k6's per-check counts as one line on stdout (handleSummary): k6's web dashboard has
 *     only each check's pass rate, not how many times it ran.
 * k6 runs it with --no-thresholds (K6_SCRIPT_FLAGS): a crossed threshold makes k6 v1.4.2 end the
 * dashboard's stream without its last cumulative event and its stop, and the run's whole-run
 * figures come from those. The script's thresholds are counted (ScriptFacts) and the run says
 * they were not evaluated.
 * The script reaches the target through __ENV.SCALELAB_TARGET (the balancer, or the service's alias).
 */

/** Where the user's script is written; the wrapper imports it by this name. */
export const K6_USER_SCRIPT_PATH = "/scalelab/user.js";
/** The environment variable that gives the user's script the target's base URL. */
export const K6_TARGET_ENV = "SCALELAB_TARGET";
/** The lab's scenario in the wrapper, and the marker `k6 inspect` shows it by. */
export const LAB_SCENARIO_NAME = "load";
const LAB_MARKER = { SCALELAB_SCENARIO: "lab" } as const;
/** The line of the wrapper's handleSummary on stdout: this prefix, then JSON. */
export const SCRIPT_SUMMARY_MARKER = "SCALELAB_SCRIPT_SUMMARY ";
/** A script without its own scenarios in a run without workload.vus or arrivalRate (the wrapper throws it, k6 inspect prints it). */
export const NO_SCENARIOS_MESSAGE = `workload.script declares no options.scenarios: give workload.vus (closed model, ${LIMITS.vus.min}–${LIMITS.vus.max}) or workload.arrivalRate (open model), or declare scenarios in the script`;
/** Options that are shortcuts for a scenario: dropped when the lab's scenario runs. */
const SHORTCUT_OPTIONS = ["vus", "duration", "iterations", "stages"] as const;
/** The `k6/http` functions that send requests, patched so that each response is counted. */
export const K6_HTTP_FUNCTIONS = ["request", "get", "post", "put", "patch", "del", "head", "options"] as const;

/** The lab's scenario for a script (the whole workload: several instances split it with k6's execution segments), or null without vus or arrivalRate. */
function labScenario(w: TWorkload) {
  if (w.vus === undefined && w.arrivalRate === undefined) return null;
  return { ...k6Scenario(w), env: LAB_MARKER };
}

/** The wrapper: the lab's entry script around the user's (K6_USER_SCRIPT_PATH). Constants only, through JSON.stringify. */
export function renderK6Wrapper(w: TWorkload, source: BackendSource = "header"): string {
  const str = JSON.stringify;
  const userModule = `./${K6_USER_SCRIPT_PATH.split("/").at(-1)}`;
  return `import { sleep } from "k6";
import http from "k6/http";
import { Counter, Trend } from "k6/metrics";
import * as user from ${str(userModule)};
export * from ${str(userModule)};

${k6BackendCode(source)}

// Every response of the script's requests is counted per backend, as the lab's own script counts them.
for (const name of ${str(K6_HTTP_FUNCTIONS)}) {
  const send = http[name];
  http[name] = function (...args) {
    const res = send.apply(this, args);
    countHttp(res);
    return res;
  };
}
const sendBatch = http.batch;
http.batch = function (...args) {
  const responses = sendBatch.apply(this, args);
  for (const key of Object.keys(responses)) countHttp(responses[key]);
  return responses;
};
const sendAsync = http.asyncRequest;
http.asyncRequest = function (...args) {
  return sendAsync.apply(this, args).then((res) => {
    countHttp(res);
    return res;
  });
};

const LAB_SCENARIO = ${str(labScenario(w))};
const own = user.options || {};
const ownScenarios = own.scenarios !== undefined && own.scenarios !== null && Object.keys(own.scenarios).length > 0;

function labOptions() {
  const out = {};
  for (const key of Object.keys(own)) {
    if (key !== "scenarios" && !${str(SHORTCUT_OPTIONS)}.includes(key)) out[key] = own[key];
  }
  out.scenarios = { ${str(LAB_SCENARIO_NAME)}: LAB_SCENARIO };
  return out;
}

// Without either, k6 would make up a scenario of one iteration: refused.
if (!ownScenarios && LAB_SCENARIO === null) throw new Error(${str(NO_SCENARIOS_MESSAGE)});

export const options = ownScenarios ? own : labOptions();

const runsDefault = ownScenarios
  ? Object.keys(own.scenarios).some((name) => !own.scenarios[name].exec || own.scenarios[name].exec === "default")
  : true;
if (runsDefault && typeof user.default !== "function") {
  throw new Error("workload.script exports no default function: export one, or give each of its options.scenarios an exec function");
}

export default function (data) {
  return user.default(data);
}

export function teardown(data) {
  if (typeof user.teardown === "function") user.teardown(data);
  sleep(${END_TAIL_SECONDS});
}

function checksOf(group, out) {
  for (const c of group.checks || []) out.push({ name: c.path.replace(/^::/, ""), passed: c.passes, failed: c.fails });
  for (const g of group.groups || []) checksOf(g, out);
  return out;
}

export function handleSummary(data) {
  const line = { checks: checksOf(data.root_group, []) };
  return { stdout: ${str(SCRIPT_SUMMARY_MARKER)} + JSON.stringify(line) + "\\n" };
}
`;
}

const ZSummaryLine = z.object({
  checks: z.array(z.object({ name: z.string(), passed: z.number().int().nonnegative(), failed: z.number().int().nonnegative() })),
});
export type ScriptSummaryLine = z.infer<typeof ZSummaryLine>;

/** The wrapper's summary line from a k6 container's output (the last one), or undefined when it printed none. */
export function parseScriptSummary(output: string): ScriptSummaryLine | undefined {
  const line = output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith(SCRIPT_SUMMARY_MARKER))
    .at(-1);
  if (line === undefined) return undefined;
  const parsed = ZSummaryLine.safeParse(JSON.parse(line.slice(SCRIPT_SUMMARY_MARKER.length)));
  if (!parsed.success) throw new Error(`the k6 wrapper printed an unexpected summary: ${line.slice(0, 200)}`);
  return parsed.data;
}

/** Several load-generator instances' checks as one list: counts added by name, in the first instance's order. */
export function mergeChecks(parts: readonly ScriptSummaryLine["checks"][]): TScriptSummary["checks"] {
  const out = new Map<string, { name: string; passed: number; failed: number }>();
  for (const part of parts) {
    for (const c of part) {
      const o = out.get(c.name) ?? { name: c.name, passed: 0, failed: 0 };
      o.passed += c.passed;
      o.failed += c.failed;
      out.set(c.name, o);
    }
  }
  return [...out.values()];
}

/** A Go duration as k6 prints it ("1m40s", "1h0m0s", "1.5s", "500ms") in seconds. */
export function goDurationSeconds(text: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };
  if (text === "0" || text === "0s") return 0;
  if (!/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(text)) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  let seconds = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) seconds += Number(m[1]) * units[m[2]!]!;
  return seconds;
}

/** `k6 run`'s flags for a user's script (see the top of this file). */
export const K6_SCRIPT_FLAGS = ["--no-thresholds"] as const;

/** The argv of the check: k6 compiles the wrapper and the user's script and prints the options and what running them takes. */
export const K6_INSPECT_COMMAND = (entry: string): string[] => ["inspect", "--execution-requirements", entry];

const ZInspect = z.object({
  scenarios: z
    .record(z.string(), z.object({ env: z.record(z.string(), z.string()).nullable().optional() }).loose())
    .nullable()
    .optional(),
  totalDuration: z.string(),
  thresholds: z.record(z.string(), z.array(z.unknown())).nullable().optional(),
});

/** What the check found out about a script, for the run to use. */
export type ScriptFacts = {
  /** The script's own `options.scenarios` run (the lab's scenario does not). */
  ownScenarios: boolean;
  /** The longest the load can take, graceful stops included (k6's totalDuration), in whole seconds. */
  totalSeconds: number; /** The thresholds the script declares (not evaluated: K6_SCRIPT_FLAGS). */
  thresholds: number;
};

/**
 * The facts of `k6 inspect --execution-requirements` on the wrapper (its JSON output); throws with
 * a message naming the field when the run cannot use the script.
 */
export function scriptFacts(inspectOutput: string, w: TWorkload): ScriptFacts {
  let json: unknown;
  try {
    json = JSON.parse(inspectOutput);
  } catch {
    throw new Error(`k6 inspect printed something other than JSON: ${inspectOutput.slice(0, 300)}`);
  }
  const parsed = ZInspect.safeParse(json);
  if (!parsed.success) throw new Error(`k6 inspect printed unexpected options: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`);
  const scenarios = Object.values(parsed.data.scenarios ?? {});
  const lab = scenarios.length === 1 && scenarios[0]!.env?.SCALELAB_SCENARIO === LAB_MARKER.SCALELAB_SCENARIO;
  const ownScenarios = scenarios.length > 0 && !lab;
  if (!ownScenarios && w.vus === undefined && w.arrivalRate === undefined) {
    throw new Error(NO_SCENARIOS_MESSAGE);
  }
  const totalSeconds = Math.ceil(goDurationSeconds(parsed.data.totalDuration));
  const max = LIMITS.durationSeconds.max;
  if (totalSeconds > max) {
    throw new Error(
      `workload.script's scenarios take up to ${totalSeconds} s (k6's totalDuration, graceful stops included): at most ${max} s (the workload.durationSeconds limit)`,
    );
  }
  const thresholds = Object.values(parsed.data.thresholds ?? {}).reduce((n, list) => n + list.length, 0);
  return { ownScenarios, totalSeconds, thresholds };
}

/**
 * Several load-generator instances' script metrics as one list: a counter's values added, a
 * trend's the largest (the worst instance, as the run's percentiles), a gauge's and a rate's the mean.
 */
export function mergeScriptMetrics(parts: readonly TScriptSummary["metrics"][]): TScriptSummary["metrics"] {
  if (parts.length === 1) return parts[0]!;
  const byName = new Map<string, TScriptSummary["metrics"]>();
  for (const part of parts) for (const m of part) byName.set(m.name, [...(byName.get(m.name) ?? []), m]);
  return [...byName.values()].map((same) => {
    const { name, type, contains } = same[0]!;
    const keys = [...new Set(same.flatMap((m) => Object.keys(m.values)))];
    const merge = (vs: number[]) =>
      type === "counter" ? vs.reduce((a, b) => a + b, 0) : type === "trend" ? Math.max(...vs) : vs.reduce((a, b) => a + b, 0) / vs.length;
    const values = Object.fromEntries(keys.map((k) => [k, merge(same.flatMap((m) => (m.values[k] === undefined ? [] : [m.values[k]!])))]));
    return { name, type, ...(contains && { contains }), values };
  });
}
