import { describe, expect, it } from "vitest";
import { ZRunCreate, TRunCreateInput } from "../contract/run";
import { setupRows } from "../analysis/compare";
import { buildPlan, K6_SCRIPT_PATH, WRK_SCRIPT_PATH } from "../plan/plan";
import { describeLoad, executionSegment } from "./component";
import { warmupRequest } from "./endpoints";
import { K6_USER_SCRIPT_PATH } from "./k6/user-script";

const images = { testbed: "scalelab/testbed:aaa", nginx: "scalelab/nginx:bbb", k6: "scalelab/k6:ccc", wrk: "scalelab/wrk:ddd" };
const runId = "cm3x9k2abc0001";
const parse = (workload: TRunCreateInput["workload"]) => ZRunCreate.parse({ topology: { service: { replicas: 2 } }, workload });
const plan = (workload: TRunCreateInput["workload"]) => buildPlan({ runId, instance: "lab1", run: parse(workload), images });
const script = `import http from "k6/http";\nexport default function () { http.get(__ENV.SCALELAB_TARGET + "/"); }\n`;

describe("planLoadgens with a user's script", () => {
  const p = plan({ script, vus: 3, durationSeconds: 10, loadgenInstances: 2 });

  it("writes the user's script as it is beside the lab's wrapper, the target in the environment", () => {
    const k6 = p.loadgens[0]!;
    expect(k6.files.map((f) => f.path)).toEqual([K6_SCRIPT_PATH, K6_USER_SCRIPT_PATH]);
    expect(k6.files[1]!.content).toBe(script);
    expect(k6.files[0]!.content).toContain('import * as user from "./user.js";');
    expect(k6.env.SCALELAB_TARGET).toBe("http://lb:8080");
  });

  it("gives each instance its execution segment of the whole workload, thresholds off", () => {
    expect(p.loadgens.map((l) => l.cmd)).toEqual([
      [
        "run",
        "--no-color",
        "--quiet",
        "--no-thresholds",
        "--out",
        "scalelab=http_req_duration",
        "--execution-segment",
        "0:1/2",
        "--execution-segment-sequence",
        "0,1/2,1",
        K6_SCRIPT_PATH,
      ],
      [
        "run",
        "--no-color",
        "--quiet",
        "--no-thresholds",
        "--out",
        "scalelab=http_req_duration",
        "--execution-segment",
        "1/2:1",
        "--execution-segment-sequence",
        "0,1/2,1",
        K6_SCRIPT_PATH,
      ],
    ]);
    // The lab's scenario is the whole workload in each: the segments split it.
    expect(p.loadgens[1]!.files[0]!.content).toContain('"vus":3');
  });

  it("plans the check: k6 inspect on the same files, labelled as the run's", () => {
    expect(p.scriptCheck).toMatchObject({
      name: "sl-cm3x9k2a-loadgen-0-check",
      image: images.k6,
      cmd: ["inspect", "--execution-requirements", K6_SCRIPT_PATH],
      labels: { "scalelab.managed": "true", "scalelab.run": runId, "scalelab.instance": "lab1", "scalelab.role": "loadgen" },
    });
    expect(p.scriptCheck!.files).toEqual(p.loadgens[0]!.files);
    expect(plan({ endpoint: "cpu", vus: 1 }).scriptCheck).toBeUndefined();
  });

  it("splits three instances at thirds", () => {
    expect(executionSegment(1, 3)).toEqual(["--execution-segment", "1/3:2/3", "--execution-segment-sequence", "0,1/3,2/3,1"]);
    expect(executionSegment(0, 1)).toEqual([]);
  });
});

describe("wrk with workload.request", () => {
  it("puts the request in the script and keeps the command line to the lab's characters", () => {
    const p = plan({
      loadgen: "wrk",
      connections: 4,
      request: { method: "PUT", path: "/items/1?x=a'b", headers: { "X-Name": "é" }, body: "{}" },
    });
    const wrk = p.loadgens[0]!;
    expect(wrk.cmd!.at(-1)).toBe("http://lb:8080/");
    expect(wrk.files[0]!.path).toBe(WRK_SCRIPT_PATH);
    expect(wrk.files[0]!.content).toContain(
      'wrk.method = "PUT"\nwrk.path = "/items/1?x=a\'b"\nwrk.headers["X-Name"] = "\\195\\169"\nwrk.body = "{}"',
    );
  });
});

describe("the setup's Endpoint row and the warm-up", () => {
  const row = (workload: TRunCreateInput["workload"], ownScenarios?: boolean) => {
    const run = parse(workload);
    return setupRows([{ ...run, ...(ownScenarios !== undefined && { script: { ownScenarios } }) }]).find((r) => r.key === "endpoint")!
      .values[0];
  };

  it("names the request, the mix and the script", () => {
    expect(row({ request: { method: "POST", path: "/orders" }, vus: 1 })).toBe("POST /orders");
    expect(row({ requests: [{ path: "/a" }, { path: "/b" }, { path: "/c" }], vus: 1 })).toBe("mix of 3 requests");
    expect(row({ script: "x".repeat(2150) })).toBe("k6 script (2.1 KB)");
    expect(row({ script: "x".repeat(2150) }, true)).toBe("k6 script (2.1 KB; scenarios from the script)");
    expect(row({ endpoint: "cpu", vus: 1 })).toBe("cpu");
  });

  it("says the script's scenarios set the load and the duration", () => {
    const run = parse({ script });
    const rows = setupRows([{ ...run, script: { ownScenarios: true } }]);
    expect(rows.find((r) => r.key === "load")!.values[0]).toBe("the script's scenarios");
    expect(rows.find((r) => r.key === "duration")!.values[0]).toBe("the script's");
  });

  it("warms up with the request, the mix's first entry, or the health path for a script", () => {
    const w = (workload: TRunCreateInput["workload"]) => parse(workload).workload;
    expect(warmupRequest(w({ request: { method: "POST", path: "/o", headers: { A: "1" }, body: "{}" }, vus: 1 }), "/health")).toEqual({
      method: "POST",
      path: "/o",
      headers: { A: "1" },
      body: "{}",
    });
    expect(warmupRequest(w({ requests: [{ path: "/first" }, { path: "/second" }], vus: 1 }), "/health").path).toBe("/first");
    expect(warmupRequest(w({ script }), "/ready")).toEqual({ method: "GET", path: "/ready", headers: {} });
    expect(warmupRequest(w({ endpoint: "cpu", vus: 1 }), "/health")).toEqual({ method: "GET", path: "/cpu", headers: {} });
  });

  it("describes a load without a script's facts yet", () => {
    expect(describeLoad({ endpoint: "hostname", protocol: "grpc" })).toBe("hostname (gRPC)");
  });
});
