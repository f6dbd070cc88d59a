import { TWorkloadInput, ZWorkload } from "../../contract/workload";
import { describe, expect, it } from "vitest";
import { K6_ENV, k6Scenario, renderK6Script } from "./script";

type Sent = { method: string; url: string; body: unknown; params: { timeout: string; headers?: Record<string, string> } };

/**
 * Runs the script's default function in Node against a stand-in for k6/http (its import and export
 * statements stripped), with Math.random drawing `draws` in turn; returns what it sent.
 */
function send(script: string, draws: number[]): Sent[] {
  const sent: Sent[] = [];
  const http = {
    request: (method: string, url: string, body: unknown, params: Sent["params"]) => {
      sent.push({ method, url, body, params });
      return { status: 200, error_code: 0, headers: { "X-Backend": "app-0" }, timings: { duration: 1 } };
    },
  };
  class Metric {
    add() {}
  }
  let i = 0;
  const math = { random: () => draws[i++ % draws.length]! };
  const body = `${script
    .replace(/^import .*$/gm, "")
    .replace("export default function", "function __default")
    .replace(/^export (const|function) /gm, "$1 ")}\nreturn __default;`;
  const run = new Function("http", "sleep", "Counter", "Trend", "Math", body) as (...a: unknown[]) => () => void;
  const iteration = run(http, () => undefined, Metric, Metric, math);
  for (let n = 0; n < draws.length; n++) iteration();
  return sent;
}

const workload = (w: TWorkloadInput) => ZWorkload.parse(w);

function optionsOf(script: string): unknown {
  const json = /export const options = (\{[\s\S]*?\n\});/.exec(script)?.[1];
  return JSON.parse(json!);
}

describe("k6Scenario", () => {
  it("runs the closed model with constant-vus", () => {
    expect(k6Scenario(workload({ endpoint: "hostname", vus: 2, durationSeconds: 5 }))).toEqual({
      executor: "constant-vus",
      vus: 2,
      duration: "5s",
      gracefulStop: "11s",
    });
  });

  it("runs the open model with constant-arrival-rate, bounded by maxVus", () => {
    expect(k6Scenario(workload({ endpoint: "cpu", arrivalRate: 300, maxVus: 50, durationSeconds: 30, requestTimeoutMs: 2000 }))).toEqual({
      executor: "constant-arrival-rate",
      rate: 300,
      timeUnit: "1s",
      duration: "30s",
      preAllocatedVUs: 30,
      maxVUs: 50,
      gracefulStop: "3s",
    });
  });

  it("picks maxVUs when the open model does not give it", () => {
    const s = k6Scenario(workload({ endpoint: "cpu", arrivalRate: 3 }));
    expect(s).toMatchObject({ maxVUs: 10, preAllocatedVUs: 5 });
  });
});

describe("renderK6Script", () => {
  const script = renderK6Script(workload({ endpoint: "cpu", vus: 4, durationSeconds: 20, requestTimeoutMs: 1500 }));

  it("targets the balancer at the endpoint's fixed path with the request timeout", () => {
    expect(script).toContain('http.request("GET", "http://lb:8080/cpu", null, {"timeout":"1500ms"})');
  });

  it("counts hits per backend from what names the replica (X-Backend for the lab's servers)", () => {
    expect(script).toContain('new Counter("backend_hits")');
    expect(script).toContain("const backend = httpBackend(res);");
    expect(script).toContain("backendHits.add(1, { backend: backend })");
    expect(script).toContain('const SOURCE = "header";');
  });

  it("names the replica from the run's backend source", () => {
    expect(renderK6Script(workload({ vus: 1 }), "http://lb:8080", "balancer")).toContain('const SOURCE = "balancer";');
    expect(renderK6Script(workload({ vus: 1 }), "http://app:3000", "address")).toContain('const SOURCE = "address";');
  });

  it("counts every request per backend, failed ones per kind and backend, and the latency per backend", () => {
    expect(script).toContain('const backendReqs = new Counter("backend_reqs");');
    expect(script).toContain('const backendErrors = new Counter("backend_errors");');
    expect(script).toContain('const backendLatency = new Trend("backend_latency", true);');
    expect(script).toContain("const who = httpWho(res, backend);");
    expect(script).toContain("count(who, httpKind(res.status, res.error_code), res.status !== 0 ? res.timings.duration : undefined);");
    // The dashboard makes per-second sub-metrics of both tags.
    expect(K6_ENV.K6_WEB_DASHBOARD_TAGS).toBe("backend,backend_error");
  });

  it("classifies gRPC calls the same way, with the replica from the x-backend metadata", () => {
    const grpc = renderK6Script(workload({ protocol: "grpc", vus: 2 }));
    expect(grpc).toContain("const backend = metadata(res.headers) || metadata(res.trailers);");
    expect(grpc).toContain('const kind = grpcKind(res.status, res.error && res.error.message ? String(res.error.message) : "", backend);');
    expect(grpc).toContain('count(NO_ANSWER, grpcKind(undefined, "", ""));');
    expect(grpc).toContain("function grpcKind(");
  });

  it("idles in teardown so the dashboard sends the last second's bucket", () => {
    expect(script).toMatch(/export function teardown\(\) \{\n {2}sleep\(0\.5\);\n\}/);
  });

  it("discards bodies and sets no thresholds", () => {
    expect(optionsOf(script)).toEqual({
      discardResponseBodies: true,
      scenarios: { load: { executor: "constant-vus", vus: 4, duration: "20s", gracefulStop: "3s" } },
    });
    expect(script).not.toContain("thresholds");
  });
});

describe("renderK6Script with the user's request or mix", () => {
  it("sends workload.request with its headers, body and the run's timeout", () => {
    const w = workload({
      request: { method: "POST", path: "/orders?src=lab", headers: { "Content-Type": "application/json" }, body: '{"sku":"a\\"b"}' },
      vus: 1,
      requestTimeoutMs: 2000,
    });
    expect(send(renderK6Script(w), [0.5])).toEqual([
      {
        method: "POST",
        url: "http://lb:8080/orders?src=lab",
        body: '{"sku":"a\\"b"}',
        params: { timeout: "2000ms", headers: { "Content-Type": "application/json" } },
      },
    ]);
  });

  it("sends a request without a body as null, to the service's alias without a balancer", () => {
    const w = workload({ request: { method: "GET", path: "/cpu" }, vus: 1 });
    expect(send(renderK6Script(w, "http://app:8080"), [0])).toEqual([
      { method: "GET", url: "http://app:8080/cpu", body: null, params: { timeout: "10000ms" } },
    ]);
  });

  it("picks each entry of the mix in proportion to its weight, one draw per iteration", () => {
    const w = workload({
      requests: [
        { path: "/a", weight: 3 },
        { method: "DELETE", path: "/b", weight: 1 },
        { path: "/c", weight: 4 },
      ],
      vus: 1,
    });
    // Draws spread evenly over [0, 1): the split is exactly the weights'.
    const draws = Array.from({ length: 800 }, (_, i) => i / 800);
    const sent = send(renderK6Script(w), draws);
    const count = (path: string) => sent.filter((r) => r.url.endsWith(path)).length;
    expect([count("/a"), count("/b"), count("/c")]).toEqual([300, 100, 400]);
    expect(sent.find((r) => r.url.endsWith("/b"))!.method).toBe("DELETE");
  });

  it("keeps discarding response bodies", () => {
    const w = workload({ requests: [{ path: "/a" }], vus: 1 });
    expect(optionsOf(renderK6Script(w))).toMatchObject({ discardResponseBodies: true });
  });

  it("writes the user's text only as JSON strings", () => {
    const w = workload({
      request: { method: "POST", path: "/x", headers: { "X-Note": '"); http.del("/' }, body: "`${1}`</script>\u2028" },
      vus: 1,
    });
    const [sent] = send(renderK6Script(w), [0]);
    expect(sent!.params.headers).toEqual({ "X-Note": '"); http.del("/' });
    expect(sent!.body).toBe("`${1}`</script>\u2028");
  });

  it("leaves a user's script to the wrapper", () => {
    expect(() => renderK6Script(workload({ script: "export default function () {}", vus: 1 }))).toThrow(/renderK6Wrapper/);
  });
});
