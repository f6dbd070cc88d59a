import { describe, expect, it } from "vitest";
import { k6Scenario, renderK6Script } from "./k6";
import { ZWorkload, type TWorkloadInput } from "./schemas";

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

  it("counts hits per backend from X-Backend", () => {
    expect(script).toContain('new Counter("backend_hits")');
    expect(script).toContain('backendHits.add(1, { backend: String(backend) })');
    expect(script).toContain('res.headers["X-Backend"]');
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
