import { HAPROXY_ALGORITHMS } from "./config";
import { describe, expect, it } from "vitest";
import { renderHaproxyCfg } from "./haproxy-cfg";

const lines = (cfg: string) => cfg.split("\n").map((l) => l.trim());

describe("renderHaproxyCfg", () => {
  it.each(HAPROXY_ALGORITHMS)("always writes balance %s explicitly", (algorithm) => {
    const cfg = renderHaproxyCfg({ algorithm, replicas: 3 });
    expect(lines(cfg).filter((l) => l.startsWith("balance"))).toEqual([`balance ${algorithm}`]);
  });

  it("has one server slot per replica, found through Docker's DNS", () => {
    const cfg = renderHaproxyCfg({ algorithm: "roundrobin", replicas: 7 });
    expect(lines(cfg)).toContain("server-template app 7 app:8080 check resolvers docker init-addr libc,none");
    expect(cfg).toMatch(/^resolvers docker\n {2}nameserver dns 127\.0\.0\.11:53$/m);
    expect(lines(cfg)).toContain("option httpchk GET /health");
    expect(lines(cfg)).toContain("bind :8080");
    expect(lines(cfg)).toContain("mode http");
  });

  it("serves its stats at /stats on a port of their own", () => {
    const cfg = renderHaproxyCfg({ algorithm: "roundrobin", replicas: 1 });
    expect(cfg).toMatch(/^frontend stats\n {2}bind :8404\n {2}stats enable\n {2}stats uri \/stats$/m);
  });

  it("maps the default health knobs: one failure marks down, 10 s before the next check, retries elsewhere", () => {
    const l = lines(renderHaproxyCfg({ algorithm: "roundrobin", replicas: 2 }));
    expect(l).toContain("default-server inter 1s downinter 10s rise 1 fall 1 observe layer4 error-limit 1 on-error mark-down");
    expect(l).toContain("retries 2");
    expect(l).toContain("option redispatch 1");
  });

  it("maps maxFails 0 to never marked down and retryNextUpstream false to no retry", () => {
    const l = lines(renderHaproxyCfg({ algorithm: "first", replicas: 2, maxFails: 0, failTimeoutSeconds: 30, retryNextUpstream: false }));
    expect(l).toContain("default-server inter 1s downinter 30s rise 1 fall 1000000");
    expect(l.join("\n")).not.toContain("observe");
    expect(l).toContain("retries 0");
    expect(l).toContain("no option redispatch");
    expect(l).not.toContain("option redispatch 1");
  });

  it.each([{ replicas: 0 }, { replicas: 2.5 }, { maxFails: 101 }, { failTimeoutSeconds: 0 }, { algorithm: "round_robin" }])(
    "refuses %j",
    (bad) => {
      expect(() => renderHaproxyCfg({ algorithm: "roundrobin", replicas: 2, ...(bad as object) })).toThrow();
    },
  );
});

describe("renderHaproxyCfg for gRPC", () => {
  it("speaks HTTP/2 on the load frontend and to the replicas' gRPC port, checking /health on their HTTP port", () => {
    const l = lines(renderHaproxyCfg({ algorithm: "leastconn", replicas: 4, protocol: "grpc" }));
    expect(l).toContain("bind :8080 proto h2");
    expect(l).toContain("server-template app 4 app:9090 proto h2 check resolvers docker init-addr libc,none");
    expect(l.filter((x) => x.startsWith("option httpchk") || x.startsWith("http-check"))).toEqual([
      "option httpchk",
      "http-check connect port 8080 proto h1",
      "http-check send meth GET uri /health",
      "http-check expect status 200-299",
    ]);
    expect(l).toContain("mode http");
    expect(l).toContain("balance leastconn");
    expect(l).toContain("bind :8404");
  });

  it("keeps the health and retry knobs", () => {
    const l = lines(renderHaproxyCfg({ algorithm: "roundrobin", replicas: 2, protocol: "grpc", maxFails: 3, retryNextUpstream: false }));
    expect(l).toContain("default-server inter 1s downinter 10s rise 1 fall 3 observe layer4 error-limit 3 on-error mark-down");
    expect(l).toContain("retries 0");
  });

  it("keeps protocol http the default", () => {
    expect(renderHaproxyCfg({ algorithm: "source", replicas: 3, protocol: "http" })).toBe(
      renderHaproxyCfg({ algorithm: "source", replicas: 3 }),
    );
  });

  it("refuses an unknown protocol", () => {
    expect(() => renderHaproxyCfg({ algorithm: "roundrobin", replicas: 2, ...({ protocol: "h2c" } as object) })).toThrow(/protocol/);
  });
});

describe("renderHaproxyCfg for a user's image", () => {
  it("checks the image's health path on its port, any 2xx, and names the server's address in X-Scalelab-Upstream", () => {
    const l = lines(renderHaproxyCfg({ algorithm: "roundrobin", replicas: 3, port: 5000, healthPath: "/healthz?deep=1" }));
    expect(l).toContain("server-template app 3 app:5000 check resolvers docker init-addr libc,none");
    expect(l).toContain("option httpchk GET /healthz?deep=1");
    expect(l).toContain("http-check expect status 200-299");
    expect(l).toContain("http-response set-header X-Scalelab-Upstream [%si]:%sp");
  });

  it("escapes what haproxy.cfg would read in a path, and refuses what is no path", () => {
    expect(lines(renderHaproxyCfg({ algorithm: "roundrobin", replicas: 1, healthPath: "/it's/$HOME" }))).toContain(
      "option httpchk GET /it%27s/%24HOME",
    );
    expect(() => renderHaproxyCfg({ algorithm: "roundrobin", replicas: 1, healthPath: "/a b" })).toThrow(/health path/);
    expect(() => renderHaproxyCfg({ algorithm: "roundrobin", replicas: 1, healthPath: "/a\n  stats enable" })).toThrow(/health path/);
    expect(() => renderHaproxyCfg({ algorithm: "roundrobin", replicas: 1, port: 70000 })).toThrow(/port/);
  });
});
