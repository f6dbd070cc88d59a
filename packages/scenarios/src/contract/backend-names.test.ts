import { describe, expect, it } from "vitest";
import {
  addressHost,
  BALANCER_KEY,
  backendName,
  backendSource,
  nameBackendCounts,
  nameBackends,
  nameBackendStats,
  NO_ANSWER_KEY,
  TBackendStats,
  UNKNOWN_KEY,
} from "./backends";
import { k6BackendCode } from "../loadgen/k6/script";
import { BackendSource } from "./backends";

/** Replicas app-0..app-2 on the run network; a network fault's proxy stands in front of app-2. */
const addresses = {
  "172.18.0.5": "app-0",
  "172.18.0.6": "app-1",
  "172.18.0.7": "app-2",
  "172.18.0.9": "app-2",
  "fd00::5": "app-0",
};

describe("addressHost", () => {
  it.each([
    ["172.18.0.5:8080", "172.18.0.5"],
    ["172.18.0.5", "172.18.0.5"],
    ["[fd00::5]:8080", "fd00::5"],
    ["[FD00::5]:8080", "fd00::5"],
    ["fd00::5", "fd00::5"],
    // HAProxy's [%si]:%sp for IPv4.
    ["[172.18.0.6]:3000", "172.18.0.6"],
    // nginx tried app-0, then app-1 (proxy_next_upstream): the last one answered.
    ["172.18.0.5:8080, 172.18.0.6:8080", "172.18.0.6"],
    // An internal redirect, then a retry.
    ["172.18.0.5:8080 : 172.18.0.6:8080, 172.18.0.7:8080", "172.18.0.7"],
    ["172.18.0.5:8080 : 172.18.0.6:8080", "172.18.0.6"],
  ])("%s → %s", (raw, host) => {
    expect(addressHost(raw)).toBe(host);
  });

  it.each(["app-0", "app", "unix:/tmp/s.sock", "", ", ", "balancer", "app-0:8080"])("%j is no address", (raw) => {
    expect(addressHost(raw)).toBeUndefined();
  });
});

describe("backendName", () => {
  it("names a replica by its address, nginx's list by its last entry, a fault proxy by the replica behind it", () => {
    expect(backendName("172.18.0.5:8080", addresses)).toBe("app-0");
    expect(backendName("172.18.0.5:8080, 172.18.0.6:8080", addresses)).toBe("app-1");
    expect(backendName("172.18.0.9:8080", addresses)).toBe("app-2");
    expect(backendName("[fd00::5]:8080", addresses)).toBe("app-0");
    expect(backendName("[172.18.0.7]:8080", addresses)).toBe("app-2");
  });

  it("keeps a value that maps to no replica as it came, and the lab's own keys and replica names", () => {
    expect(backendName("172.18.0.200:8080", addresses)).toBe("172.18.0.200:8080");
    expect(backendName("somewhere", addresses)).toBe("somewhere");
    for (const key of [BALANCER_KEY, NO_ANSWER_KEY, UNKNOWN_KEY, "other", "app-1"]) expect(backendName(key, addresses)).toBe(key);
  });

  it("counts a response without a name as unknown when nothing could name it (no balancer answered it)", () => {
    expect(backendName(BALANCER_KEY, addresses, "unknown")).toBe(UNKNOWN_KEY);
    expect(backendName(NO_ANSWER_KEY, addresses, "unknown")).toBe(NO_ANSWER_KEY);
    expect(backendName(BALANCER_KEY, addresses, "balancer")).toBe(BALANCER_KEY);
  });
});

describe("naming per-backend figures", () => {
  it("adds up the counts of values that name one replica", () => {
    expect(
      nameBackendCounts(
        { "172.18.0.5:8080": 10, "172.18.0.5:8080, 172.18.0.5:8080": 2, "172.18.0.6:8080": 12, x: 1 },
        addresses,
        "balancer",
      ),
    ).toEqual({ "app-0": 12, "app-1": 12, x: 1 });
  });

  it("merges the figures of values that name one replica, keeping the others", () => {
    const stats: TBackendStats = {
      "172.18.0.7:8080": { requests: 30, errors: { "503": 1 }, latencyMs: { avg: 2, max: 9, p95: 4 } },
      "172.18.0.9:8080": { requests: 10, errors: {}, latencyMs: { avg: 6, max: 20, p95: 12 } },
      [BALANCER_KEY]: { requests: 2, errors: { "502": 2 }, latencyMs: { avg: 1, max: 1 } },
    };
    expect(nameBackendStats(stats, addresses, "balancer")).toEqual({
      "app-2": { requests: 40, errors: { "503": 1 }, latencyMs: { avg: 3, max: 20, p95: 12 } },
      [BALANCER_KEY]: stats[BALANCER_KEY],
    });
  });

  it("leaves the lab's servers' samples untouched, and names the rest of a sample's parts", () => {
    const sample = { t: 3, requests: 5, backends: { "172.18.0.5:8080": 5 } };
    expect(nameBackends(sample, addresses, "header")).toBe(sample);
    expect(nameBackends(sample, addresses, "address")).toEqual({ t: 3, requests: 5, backends: { "app-0": 5 } });
  });
});

describe("backendSource", () => {
  const run = (kind: string, balancer: string, loadgen: string) => ({
    topology: { service: { kind }, balancer: { kind: balancer } },
    workload: { loadgen },
  });
  it.each([
    ["testbed", "nginx", "k6", "header"],
    ["rack", "none", "wrk", "header"],
    ["image", "nginx", "wrk", "balancer"],
    ["image", "haproxy", "k6", "balancer"],
    ["image", "none", "k6", "address"],
    ["image", "none", "wrk", "unknown"],
  ])("%s behind %s with %s: %s", (kind, balancer, loadgen, source) => {
    expect(backendSource(run(kind, balancer, loadgen))).toBe(source);
  });
});

/** The k6 script's own httpBackend and httpWho (k6BackendCode), run on stand-ins of k6's responses. */
function k6Who(source: BackendSource) {
  class Metric {
    add() {}
  }
  const make = new Function("Counter", "Trend", `${k6BackendCode(source)}\nreturn { httpBackend, httpWho };`);
  const fns = make(Metric, Metric) as { httpBackend: (res: object) => string; httpWho: (res: object, backend: string) => string };
  return (res: object) => fns.httpWho(res, fns.httpBackend(res));
}

describe("the k6 script's who answered", () => {
  const answer = (status: number, headers: Record<string, string> = {}, remote_ip = "", remote_port = 0) => ({
    status,
    headers,
    remote_ip,
    remote_port,
  });

  it("header: the replica's X-Backend, else the balancer, else nobody; the balancer's header is not read", () => {
    const who = k6Who("header");
    expect(who(answer(200, { "X-Backend": "app-1", "X-Scalelab-Upstream": "172.18.0.5:8080" }))).toBe("app-1");
    expect(who(answer(502, { "X-Scalelab-Upstream": "172.18.0.5:8080" }))).toBe(BALANCER_KEY);
    expect(who(answer(0))).toBe(NO_ANSWER_KEY);
  });

  it("balancer: the balancer's header (an address), else the balancer itself, else nobody", () => {
    const who = k6Who("balancer");
    expect(who(answer(200, { "X-Backend": "app-1", "X-Scalelab-Upstream": "172.18.0.5:8080" }))).toBe("172.18.0.5:8080");
    expect(who(answer(503))).toBe(BALANCER_KEY);
    expect(who(answer(0))).toBe(NO_ANSWER_KEY);
  });

  it("address: the address the connection reached (IPv6 in brackets), else nobody", () => {
    const who = k6Who("address");
    expect(who(answer(200, {}, "172.18.0.6", 3000))).toBe("172.18.0.6:3000");
    expect(who(answer(503, {}, "fd00::5", 8080))).toBe("[fd00::5]:8080");
    expect(who(answer(0))).toBe(NO_ANSWER_KEY);
    expect(backendName(who(answer(200, {}, "172.18.0.6", 3000)), addresses, "address")).toBe("app-1");
  });

  it("unknown: an answer is unknown, no answer is nobody", () => {
    const who = k6Who("unknown");
    expect(who(answer(200, { "X-Backend": "app-0" }, "172.18.0.6", 3000))).toBe(UNKNOWN_KEY);
    expect(who(answer(0))).toBe(NO_ANSWER_KEY);
  });
});
