import { describe, expect, it } from "vitest";
import { renderNginxConf } from "./nginx";

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
