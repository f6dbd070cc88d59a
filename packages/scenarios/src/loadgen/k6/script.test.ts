import { TWorkloadInput, ZWorkload } from "../../contract/workload";
import { describe, expect, it } from "vitest";
import { K6_ENV, k6Scenario, renderK6Script } from "./script";

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
