import { describe, expect, it } from "vitest";
import { experimentRunsCsv, fileName, samplesCsv } from "./export";

const summary = {
  requests: 100,
  rps: 10,
  errors: 1,
  errorRate: 0.01,
  latencyMs: { avg: 5, p50: 4, p90: 6, p95: 7, p99: 9, max: 12 },
  durationSeconds: 10,
};

describe("experimentRunsCsv", () => {
  it("one row per run with its sweep values as columns; repetitions counted from 1", () => {
    const text = experimentRunsCsv("replicas", [
      {
        runId: "r1",
        variant: "replicas=1",
        axes: { "topology.service.replicas": 1 },
        repetition: 0,
        attempt: 1,
        status: "succeeded",
        summary,
      },
      {
        runId: "r2",
        variant: "replicas=2",
        axes: { "topology.service.replicas": 2 },
        repetition: 0,
        attempt: 2,
        status: "failed",
        summary: null,
      },
    ]);
    const lines = text.trim().split("\n");
    expect(lines[0]).toBe(
      "experiment,variant,topology.service.replicas,repetition,attempt,runId,status,requests,rps,errors,errorRate,latAvgMs,latP50Ms,latP90Ms,latP95Ms,latP99Ms,latMaxMs,durationSeconds,checksPassed,checksFailed,thresholds,thresholdResults",
    );
    expect(lines[1]).toBe("replicas,replicas=1,1,1,1,r1,succeeded,100,10,1,0.01,5,4,6,7,9,12,10,,,,");
    expect(lines[2]).toBe("replicas,replicas=2,2,1,2,r2,failed,,,,,,,,,,,,,,,");
  });

  it("adds a script's checks, all checks together", () => {
    const script = {
      ownScenarios: false,
      checks: [
        { name: "ok", passed: 90, failed: 10 },
        { name: "fast", passed: 99, failed: 1 },
      ],
      metrics: [],
    };
    const text = experimentRunsCsv("s", [
      { runId: "r", variant: "v", axes: {}, repetition: 0, attempt: 1, status: "succeeded", summary: { ...summary, script } },
    ]);
    expect(text.trim().split("\n")[1]).toMatch(/,189,11,,$/);
  });

  it("quotes commas and quotes, and defuses cells a spreadsheet would run as a formula", () => {
    const text = experimentRunsCsv('a "b", c', [
      { runId: "r", variant: "=HYPERLINK(1)", axes: {}, repetition: 0, attempt: 1, status: "succeeded", summary },
    ]);
    const row = text.trim().split("\n")[1]!;
    expect(row.startsWith('"a ""b"", c",\'=HYPERLINK(1),')).toBe(true);
  });
});

describe("samplesCsv", () => {
  it("a second without a completed request has empty latency cells, not 0; backends are columns", () => {
    const text = samplesCsv([
      {
        runId: "r",
        samples: [
          {
            t: 0,
            requests: 4,
            errors: 0,
            latencyMs: { avg: 2, p50: 2, p90: 3, p95: 3, p99: 4, max: 5 },
            backends: { "app-0": 2, "app-1": 2 },
          },
          { t: 1, requests: 0, errors: 0, latencyMs: null, backends: {} },
        ],
      },
    ]);
    expect(text.trim().split("\n")).toEqual([
      "t,requests,errors,latAvgMs,latP50Ms,latP90Ms,latP95Ms,latP99Ms,latMaxMs,backend:app-0,backend:app-1",
      "0,4,0,2,2,3,3,4,5,2,2",
      "1,0,0,,,,,,,0,0",
    ]);
  });

  it("several runs: each row names its run, variant and repetition", () => {
    const text = samplesCsv([
      { runId: "a", variant: "one", repetition: 0, samples: [{ t: 0, requests: 1, errors: 0, latencyMs: null }] },
      { runId: "b", variant: "two", repetition: 1, samples: [{ t: 0, requests: 2, errors: 1, latencyMs: null }] },
    ]);
    expect(text.trim().split("\n").slice(1)).toEqual(["a,one,1,0,1,0,,,,,,", "b,two,2,0,2,1,,,,,,"]);
  });
});

describe("fileName", () => {
  it("keeps ASCII letters and digits joined by dashes", () => {
    expect(fileName("../../etc/passwd; rm -rf /", "csv")).toBe("etc-passwd-rm-rf.csv");
    expect(fileName("Réplicas × 4", "html")).toBe("Replicas-4.html");
    expect(fileName("", "json")).toBe("scalelab.json");
  });
});

describe("thresholds in the runs CSV", () => {
  it("say passed or failed, and each threshold with its actual figure", () => {
    const text = experimentRunsCsv("t", [
      {
        runId: "r1",
        variant: "a",
        axes: {},
        repetition: 0,
        attempt: 1,
        status: "succeeded",
        summary: {
          requests: 100,
          rps: 10,
          errors: 0,
          errorRate: 0,
          latencyMs: { avg: 5, p50: 4, p90: 6, p95: 312.5, p99: 9, max: 12 },
          thresholds: {
            passed: false,
            results: [
              { metric: "p95", op: "<", value: 250, actual: 312.5, passed: false },
              { metric: "checks", op: ">=", value: 0.9, actual: null, passed: false },
            ],
          },
        },
      },
    ]);
    expect(text.trim().split("\n")[1]).toMatch(/,failed,p95<250: 312\.5 fail; checks>=0\.9: none fail$/);
  });
});
