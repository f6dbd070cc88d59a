import { describe, expect, it } from "vitest";
import {
  BALANCER_KEY,
  errorCount,
  errorKindsOf,
  grpcBackend,
  grpcErrorKind,
  httpBackend,
  httpErrorKind,
  mergeBackendStats,
  NO_ANSWER_KEY,
  TBackendStats,
} from "./backends";
import { k6BackendCode } from "../loadgen/k6/script";

/** The k6 scripts' own classification (k6BackendCode), run here with stand-ins for k6's metrics. */
function k6Functions() {
  const added: { metric: string; value: number; tags: Record<string, string> }[] = [];
  class Metric {
    constructor(private readonly name: string) {}
    add(value: number, tags: Record<string, string>) {
      added.push({ metric: this.name, value, tags });
    }
  }
  const make = new Function("Counter", "Trend", `${k6BackendCode()}\nreturn { httpKind, grpcKind, count };`);
  const fns = make(Metric, Metric) as {
    httpKind: (status: number, errorCode: number) => string;
    grpcKind: (status: unknown, message: string, answeredBy: string) => string;
    count: (backend: string, kind: string, ms?: number) => void;
  };
  return { ...fns, added };
}

/** What k6 v1.4.2 really gave in the recorded runs (fixtures k6-*backend-errors.sse, checked by hand with a debug script). */
const NGINX_502_GRPC =
  'unexpected HTTP status code received from server: 502 (Bad Gateway); transport: received unexpected content-type "text/html"';

describe("HTTP classification", () => {
  it.each([
    [200, 0, undefined],
    [302, 0, undefined],
    [404, 1404, "other"],
    [500, 1500, "other"],
    [502, 1502, "502"],
    [503, 1503, "503"],
    [504, 1504, "504"],
    [0, 1050, "timeout"],
    [0, 1212, "conn"],
    [0, 1211, "conn"],
    [0, 1220, "conn"],
  ] as const)("status %i with error_code %i is %s", (status, code, kind) => {
    expect(httpErrorKind(status, code)).toBe(kind);
    // The script's copy agrees ("" for no error).
    expect(k6Functions().httpKind(status, code)).toBe(kind ?? "");
  });

  it("attributes a request to its X-Backend, else to the balancer when anything answered, else to nobody", () => {
    expect(httpBackend("app-1", 503)).toBe("app-1");
    expect(httpBackend(undefined, 502)).toBe(BALANCER_KEY);
    expect(httpBackend("", 200)).toBe(BALANCER_KEY);
    expect(httpBackend(undefined, 0)).toBe(NO_ANSWER_KEY);
  });
});

describe("gRPC classification", () => {
  it.each([
    [0, "", "app-0", undefined],
    [4, "context deadline exceeded", "", "timeout"],
    [14, NGINX_502_GRPC, "", "502"],
    [14, "unexpected HTTP status code received from server: 504 (Gateway Timeout)", "", "504"],
    [14, "queue full", "app-2", "503"],
    [14, 'connection error: desc = "transport: Error while dialing: dial tcp 172.22.0.5:8080: connect: connection refused"', "", "conn"],
    [13, "internal", "app-0", "other"],
    [undefined, "", "", "conn"],
  ] as const)("code %s (%s) is %s", (code, message, answeredBy, kind) => {
    expect(grpcErrorKind(code, message, answeredBy || undefined)).toBe(kind);
    // k6 gives res.status as an object that Number() turns into the code; the script copes with both.
    const { grpcKind } = k6Functions();
    expect(grpcKind(code === undefined ? undefined : new Number(code), message, answeredBy)).toBe(kind ?? "");
    expect(grpcKind(code, message, answeredBy)).toBe(kind ?? "");
  });

  it("attributes a call to its x-backend metadata, else to nobody for timeouts and connection errors, else to the balancer", () => {
    expect(grpcBackend("app-2", "503")).toBe("app-2");
    expect(grpcBackend(undefined, "502")).toBe(BALANCER_KEY);
    expect(grpcBackend(undefined, "timeout")).toBe(NO_ANSWER_KEY);
    expect(grpcBackend(undefined, "conn")).toBe(NO_ANSWER_KEY);
  });
});

describe("the script's count", () => {
  it("counts every request under its backend, a failed one under kind/backend, and a response's latency", () => {
    const { count, added } = k6Functions();
    count("app-0", "", 1.5);
    count(BALANCER_KEY, "502", 0.8);
    count(NO_ANSWER_KEY, "timeout");
    expect(added).toEqual([
      { metric: "backend_reqs", value: 1, tags: { backend: "app-0" } },
      { metric: "backend_latency", value: 1.5, tags: { backend: "app-0" } },
      { metric: "backend_reqs", value: 1, tags: { backend: "balancer" } },
      { metric: "backend_errors", value: 1, tags: { backend_error: "502/balancer" } },
      { metric: "backend_latency", value: 0.8, tags: { backend: "balancer" } },
      { metric: "backend_reqs", value: 1, tags: { backend: "no answer" } },
      { metric: "backend_errors", value: 1, tags: { backend_error: "timeout/no answer" } },
    ]);
  });
});

describe("per-backend arithmetic", () => {
  const a: TBackendStats = {
    "app-0": { requests: 300, errors: { "503": 3 }, latencyMs: { avg: 2, max: 10, p95: 5 } },
    [NO_ANSWER_KEY]: { requests: 4, errors: { timeout: 3, conn: 1 }, latencyMs: null },
  };
  const b: TBackendStats = {
    "app-0": { requests: 100, errors: { "503": 1, "502": 0 }, latencyMs: { avg: 6, max: 30, p95: 8 } },
    "app-1": { requests: 50, errors: {}, latencyMs: { avg: 1, max: 2 } },
  };

  it("sums the errors by kind over the backends, leaving out kinds without any", () => {
    expect(errorKindsOf(a)).toEqual({ "503": 3, timeout: 3, conn: 1 });
    expect(errorCount(errorKindsOf(a))).toBe(7);
    expect(errorKindsOf({})).toEqual({});
  });

  it("merges instances: counts add, the mean weighted by requests, max the largest, p95 the worst", () => {
    expect(mergeBackendStats([a, b])).toEqual({
      "app-0": { requests: 400, errors: { "503": 4 }, latencyMs: { avg: 3, max: 30, p95: 8 } },
      [NO_ANSWER_KEY]: { requests: 4, errors: { timeout: 3, conn: 1 }, latencyMs: null },
      "app-1": { requests: 50, errors: {}, latencyMs: { avg: 1, max: 2 } },
    });
    expect(mergeBackendStats([undefined, undefined])).toBeUndefined();
    // An instance without per-backend figures (an older generator) adds nothing; zero counts are left out.
    expect(mergeBackendStats([undefined, b])).toEqual({ "app-0": { ...b["app-0"], errors: { "503": 1 } }, "app-1": b["app-1"] });
  });
});
