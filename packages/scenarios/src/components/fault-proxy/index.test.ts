import { describe, expect, it } from "vitest";
import { buildPlan, previewFiles, requiredImages, tiers, PlanInput } from "../../plan/plan";
import { ZRunCreate, TRunCreateInput } from "../../contract/run";
import { dialHost, networkFaultTargets, toxicsFor, TOXIPROXY_CONFIG_PATH } from "./index";
import { LAB_IMAGES } from "../types";

const images = Object.fromEntries(LAB_IMAGES.map((i) => [i, `scalelab/${i}:tag`]));
const runId = "cm3x9k2abc0001";
const parse = (run: TRunCreateInput) => ZRunCreate.parse(run);
const plan = (run: TRunCreateInput) => buildPlan({ runId, run: parse(run), images } satisfies PlanInput);

const threeReplicas = (faults: TRunCreateInput["faults"], extra: Partial<TRunCreateInput["topology"]> = {}): TRunCreateInput => ({
  topology: { balancer: { kind: "nginx" }, service: { replicas: 3 }, ...extra },
  workload: { endpoint: "hostname", vus: 3, durationSeconds: 60 },
  faults,
});

describe("the network-fault proxy in the plan", () => {
  const p = plan(threeReplicas([{ at: 10, action: "delay", ms: 200, target: { role: "app", index: 2 } }]));
  const byName = (name: string) => p.containers.find((c) => c.name === name)!;
  const app2 = byName("sl-cm3x9k2a-app-2");
  const proxy = byName("sl-cm3x9k2a-proxy-app-2");

  it("puts one proxy in front of app-2, with app-2's shared alias; app-2 keeps its host name (X-Backend) but no alias", () => {
    expect(p.containers.filter((c) => c.role === "proxy")).toHaveLength(1);
    expect(proxy).toMatchObject({
      role: "proxy",
      component: "toxiproxy",
      title: "the network-fault proxy of app-2",
      hostname: "proxy-app-2",
      image: "scalelab/toxiproxy:tag",
      // Not `app-2`: Docker's DNS answers app-2's host name with app-2 itself; nginx dials proxy-app-2.
      aliases: ["app"],
      cmd: ["toxiproxy-server", "-host", "0.0.0.0", "-port", "8474", "-config", TOXIPROXY_CONFIG_PATH],
      labels: { "scalelab.managed": "true", "scalelab.run": runId, "scalelab.role": "proxy" },
    });
    expect(proxy.nanoCpus).toBeUndefined();
    expect(app2).toMatchObject({ hostname: "app-2", aliases: [] });
    // The other replicas are untouched, and X-Backend still names app-2.
    expect(byName("sl-cm3x9k2a-app-0").aliases).toEqual(["app-0", "app"]);
    expect(p.backends).toEqual(["app-0", "app-1", "app-2"]);
  });

  it("proxies each port of app-2 to its container name", () => {
    expect(proxy.files).toHaveLength(1);
    expect(proxy.files[0]!.path).toBe(TOXIPROXY_CONFIG_PATH);
    expect(JSON.parse(proxy.files[0]!.content)).toEqual([
      { name: "app-2-8080", listen: "0.0.0.0:8080", upstream: "sl-cm3x9k2a-app-2:8080", enabled: true },
      { name: "app-2-9090", listen: "0.0.0.0:9090", upstream: "sl-cm3x9k2a-app-2:9090", enabled: true },
    ]);
    expect(p.faultProxies).toEqual([
      { target: { role: "app", index: 2 }, container: "sl-cm3x9k2a-proxy-app-2", apiPort: 8474, proxies: ["app-2-8080", "app-2-9090"] },
    ]);
  });

  it("starts the proxy after its target and before the balancer, ready once every port listens", () => {
    expect(proxy.tier).toBe(app2.tier + 0.5);
    expect(tiers(p).map((t) => t.map((c) => c.role))).toEqual([["app", "app", "app"], ["proxy"], ["lb"]]);
    expect(proxy.ready).toEqual([
      { kind: "tcp", port: 8474 },
      { kind: "tcp", port: 8080 },
      { kind: "tcp", port: 9090 },
    ]);
  });

  it("needs the toxiproxy image; the preview shows its config", () => {
    expect(requiredImages(parse(threeReplicas([{ at: 10, action: "delay", ms: 200, target: { role: "app", index: 2 } }])))).toContain(
      "toxiproxy",
    );
    expect(previewFiles(p).find((f) => f.container === proxy.name)).toMatchObject({ title: "toxiproxy.json", path: TOXIPROXY_CONFIG_PATH });
  });

  it("one proxy per target, however many network faults it has; the store's proxy starts before the service", () => {
    const q = plan(
      threeReplicas(
        [
          { at: 5, action: "loss", percent: 10, target: { role: "db", index: 0 } },
          { at: 10, action: "delay", ms: 50, target: { role: "app", index: 0 } },
          { at: 20, action: "clear", target: { role: "app", index: 0 } },
          { at: 30, action: "reset", target: { role: "app", index: 0 } },
          { at: 40, action: "stop", target: { role: "app", index: 1 } },
        ],
        { storage: { kind: "postgres" } },
      ),
    );
    expect(q.faultProxies.map((f) => [f.container, f.proxies])).toEqual([
      ["sl-cm3x9k2a-proxy-db-0", ["db-0-5432"]],
      ["sl-cm3x9k2a-proxy-app-0", ["app-0-8080", "app-0-9090"]],
    ]);
    const db = q.containers.find((c) => c.role === "db")!;
    const dbProxy = q.containers.find((c) => c.name === "sl-cm3x9k2a-proxy-db-0")!;
    // The store's host name is nobody's business: it becomes its container name, so `db` is the proxy's alone.
    expect(dbProxy).toMatchObject({ tier: 0.5, aliases: ["db"], hostname: "proxy-db", title: "the network-fault proxy of db" });
    expect(db).toMatchObject({ aliases: [], hostname: db.name });
    expect(JSON.parse(dbProxy.files[0]!.content)[0]).toMatchObject({ listen: "0.0.0.0:5432", upstream: `${db.name}:5432` });
    // A stopped replica needs no proxy, but a network holder (./netns.ts), started just before the replicas.
    expect(tiers(q).map((t) => t.map((c) => c.role))).toEqual([["db"], ["proxy"], ["netns"], ["app", "app", "app"], ["proxy"], ["lb"]]);
    expect(q.containers.find((c) => c.name === "sl-cm3x9k2a-app-1")).toMatchObject({ aliases: [], networkOf: "sl-cm3x9k2a-netns-app-1" });
  });

  it("a run with only container faults, or none, has no proxy and does not build its image", () => {
    for (const faults of [[], [{ at: 10, action: "stop" as const, target: { role: "app", index: 1 } }]]) {
      const run = threeReplicas(faults);
      const q = plan(run);
      expect(q.containers.map((c) => c.role)).not.toContain("proxy");
      expect(q.faultProxies).toEqual([]);
      expect(requiredImages(parse(run))).not.toContain("toxiproxy");
    }
  });

  it("a replica behind a proxy is dialled by the proxy's host name; the others by their own", () => {
    const run = parse(threeReplicas([{ at: 10, action: "delay", ms: 200, target: { role: "app", index: 2 } }]));
    expect([0, 1, 2].map((i) => dialHost(run, { role: "app", index: i }, `app-${i}`))).toEqual(["app-0", "app-1", "proxy-app-2"]);
    expect(dialHost(parse(threeReplicas([])), { role: "app", index: 2 }, "app-2")).toBe("app-2");
  });

  it("Cassandra keeps its host name (its seed is its own name); the balancer and the broker give theirs up", () => {
    const q = plan({
      topology: { balancer: { kind: "haproxy" }, service: { replicas: 1 }, storage: { kind: "cassandra" }, downstream: { mode: "async" } },
      workload: { endpoint: "products", vus: 1, durationSeconds: 60 },
      faults: [
        { at: 5, action: "delay", ms: 10, target: { role: "kafka", index: 0 } },
        { at: 5, action: "reset", target: { role: "lb", index: 0 } },
      ],
    });
    const role = (r: string) => q.containers.find((c) => c.role === r)!;
    // Cassandra takes no network fault (its clients find the node by address); it keeps its names.
    expect(role("db")).toMatchObject({ hostname: "db", aliases: ["db"] });
    expect(role("kafka")).toMatchObject({ hostname: "sl-cm3x9k2a-kafka-0", aliases: [] });
    expect(role("lb")).toMatchObject({ hostname: "sl-cm3x9k2a-lb-0", aliases: [] });
    const proxies = q.containers.filter((c) => c.role === "proxy");
    expect(proxies.map((p) => [p.hostname, p.aliases, p.tier])).toEqual([
      ["proxy-kafka", ["kafka"], 0.5],
      ["proxy-lb", ["lb"], 2.5],
    ]);
  });

  it("networkFaultTargets lists each target once, in order of first appearance", () => {
    const run = parse(
      threeReplicas([
        { at: 30, action: "bandwidth", kbps: 800, target: { role: "app", index: 1 } },
        { at: 10, action: "pause", target: { role: "app", index: 0 } },
        { at: 40, action: "clear", target: { role: "app", index: 1 } },
        { at: 50, action: "delay", ms: 5, target: { role: "app", index: 1 } },
      ]),
    );
    expect(networkFaultTargets(run)).toEqual([{ role: "app", index: 1 }]);
  });
});

describe("toxicsFor", () => {
  it("delay: latency (± jitter) on the traffic into the target", () => {
    expect(toxicsFor({ action: "delay", ms: 200 })).toEqual([
      { name: "delay", type: "latency", stream: "upstream", toxicity: 1, attributes: { latency: 200, jitter: 0 } },
    ]);
    expect(toxicsFor({ action: "delay", ms: 200, jitterMs: 50 })[0]!.attributes).toEqual({ latency: 200, jitter: 50 });
  });

  it("loss: that share of the connections black-holed (a timeout toxic that never closes)", () => {
    expect(toxicsFor({ action: "loss", percent: 25 })).toEqual([
      { name: "loss", type: "timeout", stream: "upstream", toxicity: 0.25, attributes: { timeout: 0 } },
    ]);
    expect(toxicsFor({ action: "loss", percent: 100 })[0]!.toxicity).toBe(1);
  });

  it("bandwidth: kbps / 8 KB/s each direction, at least 1 KB/s", () => {
    expect(toxicsFor({ action: "bandwidth", kbps: 800 })).toEqual([
      { name: "bandwidth-in", type: "bandwidth", stream: "upstream", toxicity: 1, attributes: { rate: 100 } },
      { name: "bandwidth-out", type: "bandwidth", stream: "downstream", toxicity: 1, attributes: { rate: 100 } },
    ]);
    expect(toxicsFor({ action: "bandwidth", kbps: 1 })[0]!.attributes.rate).toBe(1);
    expect(toxicsFor({ action: "bandwidth", kbps: 10_000_000 })[1]!.attributes.rate).toBe(1_250_000);
  });

  it("reset: connections reset when the client sends", () => {
    expect(toxicsFor({ action: "reset" })).toEqual([
      { name: "reset", type: "reset_peer", stream: "upstream", toxicity: 1, attributes: { timeout: 0 } },
    ]);
  });

  it("clear puts no toxic; container actions and missing parameters are errors", () => {
    expect(toxicsFor({ action: "clear" })).toEqual([]);
    expect(() => toxicsFor({ action: "stop" })).toThrow(/stop is not a network fault/);
    expect(() => toxicsFor({ action: "delay" })).toThrow(/delay needs ms/);
  });
});
