import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TWorkloadInput, ZWorkload } from "../../contract/workload";
import { TScriptSummary } from "../../contract/results";
import { K6EventReader } from "./events";
import {
  goDurationSeconds,
  K6_HTTP_FUNCTIONS,
  mergeChecks,
  mergeScriptMetrics,
  NO_SCENARIOS_MESSAGE,
  parseScriptSummary,
  renderK6Wrapper,
  scriptFacts,
} from "./user-script";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const workload = (w: Omit<TWorkloadInput, "script">) => ZWorkload.parse({ script: "export default function () {}", ...w });

type Response = { status: number; error_code: number; headers: Record<string, string>; timings: { duration: number } };
type Wrapper = {
  options: Record<string, unknown>;
  default: (data?: unknown) => unknown;
  teardown: (data?: unknown) => void;
  handleSummary: (data: unknown) => { stdout: string };
};

/**
 * Runs the wrapper's JavaScript in Node against stand-ins for k6's modules and a user module: its
 * import and export statements become parameters and a returned object (the real k6 compiles the
 * same text in the worker's integration test).
 */
function evaluate(w: ReturnType<typeof workload>, user: Record<string, unknown>) {
  const counted: { metric: string; value: number; tags: Record<string, string> }[] = [];
  const sent: string[] = [];
  const answer: Response = { status: 200, error_code: 0, headers: { "X-Backend": "app-1" }, timings: { duration: 4 } };
  const http: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of K6_HTTP_FUNCTIONS) http[name] = (...args) => (sent.push(`${name} ${String(args[0])}`), answer);
  http.batch = (reqs) => (reqs as unknown[]).map(() => answer);
  http.asyncRequest = () => Promise.resolve(answer);
  class Metric {
    constructor(private readonly name: string) {}
    add(value: number, tags: Record<string, string>) {
      counted.push({ metric: this.name, value, tags });
    }
  }
  const slept: number[] = [];
  let body = renderK6Wrapper(w)
    .replace(/^import .*$/gm, "")
    .replace(/^export \* from .*$/gm, "")
    .replace("export default function", "function __default")
    .replace(/^export (const|function) /gm, "$1 ");
  body += "\nreturn { options, default: __default, teardown, handleSummary };";
  const fn = new Function("http", "sleep", "Counter", "Trend", "user", body) as (...a: unknown[]) => Wrapper;
  const exports = fn(http, (s: number) => slept.push(s), Metric, Metric, user);
  return { exports, http, counted, sent, slept };
}

describe("renderK6Wrapper", () => {
  const lab = workload({ vus: 4, durationSeconds: 20, requestTimeoutMs: 1500 });

  it("runs the lab's scenario with the user's other options, its shortcuts dropped", () => {
    const user = {
      options: { vus: 50, duration: "1h", stages: [], iterations: 3, thresholds: { checks: ["rate>0.9"] }, discardResponseBodies: false },
      default: () => undefined,
    };
    expect(evaluate(lab, user).exports.options).toEqual({
      thresholds: { checks: ["rate>0.9"] },
      discardResponseBodies: false,
      scenarios: {
        load: { executor: "constant-vus", vus: 4, duration: "20s", gracefulStop: "3s", env: { SCALELAB_SCENARIO: "lab" } },
      },
    });
  });

  it("gives the open model as the lab's scenario, whole (several instances split it with execution segments)", () => {
    const open = workload({ arrivalRate: 100, durationSeconds: 10, loadgenInstances: 2 });
    const { options } = evaluate(open, { default: () => undefined }).exports;
    expect(options.scenarios).toMatchObject({ load: { executor: "constant-arrival-rate", rate: 100, duration: "10s" } });
  });

  it("keeps the user's options whole when they declare scenarios", () => {
    const own = { scenarios: { browse: { executor: "constant-vus", vus: 2, duration: "30s", exec: "browse" } }, thresholds: {} };
    expect(evaluate(lab, { options: own, browse: () => undefined }).exports.options).toBe(own);
  });

  it("refuses a script with neither its own scenarios nor workload.vus or arrivalRate (k6 would make up one iteration)", () => {
    expect(() => evaluate(workload({}), { options: { vus: 10, duration: "1m" }, default: () => undefined })).toThrow(NO_SCENARIOS_MESSAGE);
    const own = { scenarios: { browse: { executor: "constant-vus", vus: 1, duration: "5s" } } };
    expect(evaluate(workload({}), { options: own, default: () => undefined }).exports.options).toBe(own);
  });

  it("refuses a script without a default function when a scenario would run it", () => {
    expect(() => evaluate(lab, {})).toThrow("workload.script exports no default function");
    const own = { scenarios: { browse: { executor: "constant-vus", vus: 1, duration: "5s", exec: "browse" } } };
    expect(() => evaluate(lab, { options: own, browse: () => undefined })).not.toThrow();
  });

  it("counts every response of the user's requests per backend, batches included", async () => {
    const { exports, http, counted, sent } = evaluate(lab, {
      default: () => {
        http.get!("http://lb:8080/a");
        http.post!("http://lb:8080/b", "{}");
        http.batch!([
          ["GET", "http://lb:8080/c"],
          ["GET", "http://lb:8080/d"],
        ]);
      },
    });
    exports.default();
    await http.asyncRequest!("GET", "http://lb:8080/e");
    expect(sent).toEqual(["get http://lb:8080/a", "post http://lb:8080/b"]);
    const reqs = counted.filter((c) => c.metric === "backend_reqs");
    expect(reqs).toHaveLength(5);
    expect(reqs.every((c) => c.tags.backend === "app-1")).toBe(true);
    expect(counted.filter((c) => c.metric === "backend_hits")).toHaveLength(5);
    expect(counted.filter((c) => c.metric === "backend_latency").map((c) => c.value)).toEqual([4, 4, 4, 4, 4]);
  });

  it("calls the user's teardown, then idles for the dashboard's last bucket", () => {
    const calls: unknown[] = [];
    const { exports, slept } = evaluate(lab, { default: () => undefined, teardown: (d: unknown) => calls.push(d) });
    exports.teardown("setup data");
    expect(calls).toEqual(["setup data"]);
    expect(slept).toEqual([0.5]);
  });

  it("prints every check, those in groups by their path, as one line", () => {
    const { exports } = evaluate(lab, { default: () => undefined });
    const data = {
      root_group: {
        checks: [{ path: "::status is 200", passes: 9, fails: 1 }],
        groups: [{ checks: [{ path: "::cart::has items", passes: 3, fails: 0 }], groups: [] }],
      },
      metrics: {},
    };
    expect(parseScriptSummary(exports.handleSummary(data).stdout)).toEqual({
      checks: [
        { name: "status is 200", passed: 9, failed: 1 },
        { name: "cart::has items", passed: 3, failed: 0 },
      ],
    });
  });

  it("writes the lab's values through JSON.stringify only", () => {
    const text = renderK6Wrapper(lab);
    expect(text).toContain('import * as user from "./user.js";\nexport * from "./user.js";');
    expect(text).not.toContain("export default function () {}");
  });
});

describe("the wrapper's summary line", () => {
  it("reads the checks from a real k6 run's output (2 checks), with other lines around it", () => {
    const out = `time="x" level=info msg="hello" source=console\n${fixture("k6-script.out")}\nsomething after\n`;
    expect(parseScriptSummary(out)).toEqual({
      checks: [
        { name: "status is 200", passed: 157, failed: 18 },
        { name: "has body", passed: 175, failed: 0 },
      ],
    });
    expect(parseScriptSummary("no summary here")).toBeUndefined();
    expect(() => parseScriptSummary('SCALELAB_SCRIPT_SUMMARY {"checks":[{"name":1}]}')).toThrow(/unexpected summary/);
  });

  it("adds several instances' checks by name", () => {
    const a = [{ name: "ok", passed: 3, failed: 1 }];
    const b = [
      { name: "ok", passed: 2, failed: 0 },
      { name: "fast", passed: 1, failed: 1 },
    ];
    expect(mergeChecks([a, b])).toEqual([
      { name: "ok", passed: 5, failed: 1 },
      { name: "fast", passed: 1, failed: 1 },
    ]);
  });
});

/**
 * k6-script.sse / k6-script.out: the wrapper (vus 2, 5 s) around this script, k6 v1.4.2 with the
 * lab's dashboard settings and --no-thresholds, against a local server answering as app-0 and
 * app-1 in turn, every tenth response a 500:
 *   const orders = new Counter("orders_made"); const orderTime = new Trend("order_time", true);
 *   export const options = { thresholds: { checks: ["rate>0.99"] } };
 *   export default function () {
 *     const res = http.get(`${__ENV.SCALELAB_TARGET}/orders`);
 *     check(res, { "status is 200": (r) => r.status === 200, "has body": (r) => r.body && r.body.length > 0 });
 *     orders.add(1); orderTime.add(res.timings.duration); sleep(0.01);
 *   }
 */
describe("K6EventReader.scriptMetrics", () => {
  const reader = new K6EventReader("http");
  for (const block of fixture("k6-script.sse").split("\n\n")) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event && data !== undefined) reader.push(event, data);
  }

  it("gives the script's own metrics, whole-run, without k6's and the lab's", () => {
    const metrics = reader.scriptMetrics();
    expect(metrics.map((m) => [m.name, m.type, m.contains])).toEqual([
      ["order_time", "trend", "time"],
      ["orders_made", "counter", undefined],
    ]);
    const summary = reader.summary(5)!;
    // One order per request: the counter counts what k6 counted.
    expect(metrics[1]!.values.count).toBe(summary.requests);
    expect(Object.keys(metrics[0]!.values).sort()).toEqual(["avg", "max", "med", "min", "p(90)", "p(95)", "p(99)"]);
    expect(metrics[0]!.values["p(95)"]).toBeGreaterThan(0);
  });

  it("still counts the script's requests per backend, as the lab's own script does", () => {
    const summary = reader.summary(5)!;
    expect(Object.keys(summary.backends!).sort()).toEqual(["app-0", "app-1"]);
    expect(summary.backends!["app-0"]! + summary.backends!["app-1"]!).toBe(summary.requests);
    // Every tenth response a 500: the checks' failures are the requests' errors.
    expect(summary.errors).toBe(18);
  });

  it("merges instances: counters added, trends the worst, gauges and rates the mean", () => {
    const a: TScriptSummary["metrics"] = [
      { name: "n", type: "counter" as const, values: { count: 3, rate: 1 } },
      { name: "t", type: "trend" as const, values: { avg: 2, max: 9 } },
      { name: "r", type: "rate" as const, values: { rate: 0.5 } },
    ];
    const b: TScriptSummary["metrics"] = [
      { name: "n", type: "counter" as const, values: { count: 4, rate: 2 } },
      { name: "t", type: "trend" as const, values: { avg: 3, max: 5 } },
      { name: "r", type: "rate" as const, values: { rate: 1 } },
    ];
    expect(mergeScriptMetrics([a, b])).toEqual([
      { name: "n", type: "counter", values: { count: 7, rate: 3 } },
      { name: "t", type: "trend", values: { avg: 3, max: 9 } },
      { name: "r", type: "rate", values: { rate: 0.75 } },
    ]);
  });
});

describe("scriptFacts (k6 inspect --execution-requirements)", () => {
  it("sees the lab's scenario in the wrapper's options", () => {
    expect(scriptFacts(fixture("k6-inspect-lab.json"), workload({ vus: 2, durationSeconds: 5 }))).toEqual({
      ownScenarios: false,
      totalSeconds: 16,
      thresholds: 1,
    });
  });

  it("sees the script's own scenarios and their total duration, graceful stops included", () => {
    expect(scriptFacts(fixture("k6-inspect-own.json"), workload({}))).toEqual({ ownScenarios: true, totalSeconds: 50, thresholds: 2 });
  });

  it("refuses a script with neither its own scenarios nor workload.vus or arrivalRate", () => {
    const none = fixture("k6-inspect-lab.json").replace(/"scenarios": \{[\s\S]*?\n {2}\},\n/, '"scenarios": null,\n');
    expect(none).toContain('"scenarios": null');
    expect(() => scriptFacts(none, workload({}))).toThrow(/workload.script declares no options.scenarios: give workload.vus/);
  });

  it("refuses scenarios longer than the duration limit", () => {
    const long = fixture("k6-inspect-own.json").replace('"totalDuration": "50s"', '"totalDuration": "1h0m1s"');
    expect(() => scriptFacts(long, workload({}))).toThrow("workload.script's scenarios take up to 3601 s");
  });

  it("says what k6 printed when it is not JSON", () => {
    expect(() => scriptFacts("oops", workload({ vus: 1 }))).toThrow("k6 inspect printed something other than JSON: oops");
  });
});

describe("goDurationSeconds", () => {
  it("reads Go's durations as k6 prints them", () => {
    expect(goDurationSeconds("1m40s")).toBe(100);
    expect(goDurationSeconds("1h0m0s")).toBe(3600);
    expect(goDurationSeconds("2.5s")).toBe(2.5);
    expect(goDurationSeconds("500ms")).toBe(0.5);
    expect(goDurationSeconds("0s")).toBe(0);
    expect(() => goDurationSeconds("5 minutes")).toThrow("not a duration");
  });
});
