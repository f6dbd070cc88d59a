import { describe, expect, it } from "vitest";
import { renderNginxConf } from "./nginx-conf";

describe("renderNginxConf", () => {
  it("writes one server per replica with explicit passive health checks, keepalive and retry policy", () => {
    const conf = renderNginxConf({ algorithm: "round_robin", upstreams: ["app-0", "app-1", "app-2"] });
    expect(conf.match(/^ {4}server app-\d:8080 max_fails=1 fail_timeout=10s;$/gm)).toHaveLength(3);
    expect(conf).toContain("keepalive 64;");
    expect(conf).toContain("proxy_http_version 1.1;");
    expect(conf).toContain('proxy_set_header Connection "";');
    expect(conf).toContain("proxy_next_upstream error timeout;");
    expect(conf).toContain("add_header X-Upstream $upstream_addr always;");
    expect(conf).toContain("worker_processes auto;");
    expect(conf).toContain("access_log off;");
    expect(conf).toContain("error_log stderr");
    expect(conf).toContain("listen 8080;");
    expect(conf).not.toContain("least_conn");
  });

  it("adds least_conn when chosen", () => {
    const conf = renderNginxConf({ algorithm: "least_conn", upstreams: ["app-0"] });
    expect(conf).toMatch(/upstream app \{\n {4}least_conn;\n {4}server app-0:8080/);
  });

  it("balances its braces", () => {
    const conf = renderNginxConf({ algorithm: "least_conn", upstreams: ["app-0", "app-1"] });
    expect(conf.split("{").length).toBe(conf.split("}").length);
  });

  it.each([[[]], [["app-0;evil"]], [["x"]]])("rejects upstreams %j", (upstreams) => {
    expect(() => renderNginxConf({ algorithm: "round_robin", upstreams })).toThrow();
  });
});

describe("renderNginxConf algorithms and health knobs", () => {
  const upstreams = ["app-0", "app-1"];
  it.each([
    ["round_robin", undefined],
    ["least_conn", "least_conn;"],
    ["ip_hash", "ip_hash;"],
    ["hash", "hash $request_id;"],
    ["random", "random two least_conn;"],
  ] as const)("writes %s as %s", (algorithm, directive) => {
    const conf = renderNginxConf({ algorithm, upstreams });
    const block = conf.slice(conf.indexOf("upstream app {"), conf.indexOf("keepalive"));
    const lines = block
      .split("\n")
      .slice(1)
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("server "));
    expect(lines).toEqual(directive ? [directive] : []);
  });

  it("writes max_fails, fail_timeout and proxy_next_upstream from the knobs", () => {
    const conf = renderNginxConf({ algorithm: "round_robin", upstreams, maxFails: 0, failTimeoutSeconds: 3600, retryNextUpstream: false });
    expect(conf.match(/^ {4}server app-\d:8080 max_fails=0 fail_timeout=3600s;$/gm)).toHaveLength(2);
    expect(conf).toContain("proxy_next_upstream off;");
    expect(conf).not.toContain("proxy_next_upstream error timeout;");
  });

  it.each([{ maxFails: 101 }, { maxFails: 1.5 }, { failTimeoutSeconds: 0 }, { algorithm: "roundrobin" }])("refuses %j", (bad) => {
    expect(() => renderNginxConf({ algorithm: "round_robin", upstreams, ...(bad as object) })).toThrow();
  });
});

describe("renderNginxConf for gRPC", () => {
  const upstreams = ["app-0", "app-1"];

  it("speaks HTTP/2 on both sides, to the replicas' gRPC port, with the same upstream block", () => {
    const conf = renderNginxConf({ algorithm: "least_conn", upstreams, protocol: "grpc" });
    expect(conf).toMatch(/upstream app \{\n {4}least_conn;\n {4}server app-0:9090 max_fails=1 fail_timeout=10s;\n {4}server app-1:9090 /);
    expect(conf).toContain("keepalive 64;");
    expect(conf).toContain("listen 8080 http2;");
    expect(conf).toContain("grpc_pass grpc://app;");
    expect(conf).toContain("grpc_next_upstream error timeout;");
    expect(conf).toContain("add_header X-Upstream $upstream_addr always;");
    expect(conf).not.toMatch(/proxy_|:8080 /);
    expect(conf.split("{").length).toBe(conf.split("}").length);
  });

  it("maps the health knobs and retryNextUpstream false to grpc_next_upstream off", () => {
    const conf = renderNginxConf({
      algorithm: "round_robin",
      upstreams,
      protocol: "grpc",
      maxFails: 0,
      failTimeoutSeconds: 30,
      retryNextUpstream: false,
    });
    expect(conf.match(/^ {4}server app-\d:9090 max_fails=0 fail_timeout=30s;$/gm)).toHaveLength(2);
    expect(conf).toContain("grpc_next_upstream off;");
  });

  it("keeps protocol http the default", () => {
    expect(renderNginxConf({ algorithm: "hash", upstreams, protocol: "http" })).toBe(renderNginxConf({ algorithm: "hash", upstreams }));
  });

  it("refuses an unknown protocol", () => {
    expect(() => renderNginxConf({ algorithm: "round_robin", upstreams, ...({ protocol: "h2c" } as object) })).toThrow(/protocol/);
  });

  it("sends to a user's image's port, and names the replica that sent the response in X-Scalelab-Upstream", () => {
    const conf = renderNginxConf({ algorithm: "round_robin", upstreams: ["app-0", "proxy-app-1"], port: 3000 });
    expect(conf.match(/^ {4}server (proxy-)?app-\d:3000 max_fails=1 fail_timeout=10s;$/gm)).toHaveLength(2);
    expect(conf).toContain("add_header X-Scalelab-Upstream $scalelab_upstream always;");
    // The last upstream tried gave no response header ("-"): nginx answered itself, no address.
    expect(conf).toMatch(
      /map "\$upstream_header_time\/\$upstream_addr" \$scalelab_upstream \{\n {4}"~-\/" "";\n {4}default \$upstream_addr;\n {2}\}/,
    );
    expect(renderNginxConf({ algorithm: "round_robin", upstreams: ["app-0"] })).toContain("server app-0:8080 ");
    expect(conf.split("{").length).toBe(conf.split("}").length);
  });

  it.each([0, 65536, 80.5])("refuses port %s", (port) => {
    expect(() => renderNginxConf({ algorithm: "round_robin", upstreams: ["app-0"], port })).toThrow(/port/);
  });
});
