import { K6_DASHBOARD_PORT } from "@scalelab/scenarios/loadgen";
import { PlannedContainer } from "@scalelab/scenarios/plan";
import { describe, expect, it } from "vitest";
import { configName, engineClient, nodeHost, publishedPorts } from "./swarm";
import { hostPort } from "./types";

const container = (over: Partial<PlannedContainer>): PlannedContainer => ({
  name: "sl-run-x",
  role: "app",
  component: "service",
  title: "x",
  image: "scalelab/testbed:1",
  hostname: "x",
  aliases: [],
  env: {},
  labels: {},
  files: [],
  tier: 1,
  ready: [],
  ...over,
});

describe("publishedPorts", () => {
  it("publishes the ports the worker dials: probes, figures, connections", () => {
    const c = container({ ports: [8080], ready: [{ kind: "http", port: 8080, path: "/health" }], stats: { port: 8080, path: "/stats" } });
    expect(publishedPorts(c)).toEqual([8080]);
  });

  it("adds k6's dashboard, which the load step reads, and nothing for wrk (read on stdout)", () => {
    expect(publishedPorts(container({ role: "loadgen", component: "k6" }))).toEqual([K6_DASHBOARD_PORT]);
    expect(publishedPorts(container({ role: "loadgen", component: "wrk" }))).toEqual([]);
  });

  it("a network holder publishes its target's ports", () => {
    expect(publishedPorts(container({ role: "netns", publish: [8080, 9090] }))).toEqual([8080, 9090]);
  });
});

describe("configName", () => {
  it("changes with the file's content and path, and is stable otherwise", () => {
    const a = configName("sl-run-lb-0", 0, { path: "/etc/nginx/nginx.conf", content: "a" });
    expect(a).toMatch(/^sl-run-lb-0-f0-[0-9a-f]{12}$/);
    expect(configName("sl-run-lb-0", 0, { path: "/etc/nginx/nginx.conf", content: "a" })).toBe(a);
    expect(configName("sl-run-lb-0", 0, { path: "/etc/nginx/nginx.conf", content: "b" })).not.toBe(a);
    expect(configName("sl-run-lb-0", 0, { path: "/etc/other.conf", content: "a" })).not.toBe(a);
  });
});

describe("engineClient", () => {
  it("takes tcp://host:port or unix:///path only", () => {
    expect(() => engineClient("tcp://10.0.0.1:2375", null)).not.toThrow();
    // An IPv6 address, bracketed as the engine's config takes it.
    expect((engineClient("tcp://[fd00::2]:2376", null).modem as { host?: string }).host).toBe("fd00::2");
    expect((engineClient("unix:///var/run/docker.sock", null).modem as { socketPath?: string }).socketPath).toBe("/var/run/docker.sock");
    for (const bad of ["http://10.0.0.1:2375", "tcp://10.0.0.1", "tcp://a:2375/x", "tcp://fd00::2:2376"]) {
      expect(() => engineClient(bad, null), bad).toThrow(/is not tcp:\/\/host:port or unix/);
    }
  });

  it("dials a node's published ports at its engine's host, the lab's own for a socket", () => {
    expect(nodeHost("tcp://172.21.0.3:2375")).toBe("172.21.0.3");
    expect(nodeHost("unix:///var/run/docker.sock")).toBe("127.0.0.1");
    expect(nodeHost("tcp://[fd00::2]:2376")).toBe("fd00::2");
    expect(hostPort({ host: nodeHost("tcp://[fd00::2]:2376"), port: 30001 })).toBe("[fd00::2]:30001");
    expect(hostPort({ host: "172.21.0.3", port: 30001 })).toBe("172.21.0.3:30001");
  });

  it("reads the certificates from the TLS directory, naming a missing one", () => {
    expect(() => engineClient("tcp://10.0.0.1:2376", "/nonexistent-tls")).toThrow(/ca\.pem/);
  });
});
