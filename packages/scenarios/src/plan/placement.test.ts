import { describe, expect, it } from "vitest";
import { ZPlacement, TEngineNode, TPlacementInput } from "../contract/engines";
import { placeContainers, PlaceableContainer } from "./placement";

const GB = 1024 ** 3;
const node = (name: string, cpus = 2, extra: Partial<TEngineNode> = {}): TEngineNode => ({
  name,
  cpus,
  memoryBytes: 4 * GB,
  availability: "active",
  state: "ready",
  ...extra,
});
const three = [node("n1"), node("n2"), node("n3")];
const c = (name: string, role: string, cpus = 0.5, networkOf?: string): PlaceableContainer => ({
  name,
  role,
  cpus,
  memoryBytes: 256 * 1024 ** 2,
  networkOf,
});
const replicas = (n: number, cpus = 0.5) => Array.from({ length: n }, (_, i) => c(`app-${i}`, "app", cpus));
const place = (cs: PlaceableContainer[], nodes: TEngineNode[], p: TPlacementInput = {}) => placeContainers(cs, nodes, ZPlacement.parse(p));
const nodesOf = (r: ReturnType<typeof placeContainers>) => {
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.nodes;
};

describe("placeContainers", () => {
  it("spread (the default) puts a role's replicas on different nodes and wraps when there are more replicas than nodes", () => {
    expect(nodesOf(place(replicas(3), three))).toEqual({ "app-0": "n1", "app-1": "n2", "app-2": "n3" });
    const five = nodesOf(placeContainers(replicas(5), three, undefined));
    const counts = Object.values(five).reduce<Record<string, number>>((m, n) => ({ ...m, [n]: (m[n] ?? 0) + 1 }), {});
    expect(Object.values(counts).sort()).toEqual([1, 2, 2]);
  });

  it("spread starts each role from the least loaded node", () => {
    const r = nodesOf(place([c("db-0", "db", 1.5), ...replicas(2), c("lb-0", "lb", 0.5)], three));
    expect(r["db-0"]).toBe("n1");
    expect([r["app-0"], r["app-1"]]).toEqual(["n2", "n3"]);
    // n1 has 1.5 of 2 CPUs; n2 and n3 0.5: the balancer goes to the first of the least loaded.
    expect(r["lb-0"]).toBe("n2");
  });

  it("pack fills a node's CPUs before the next", () => {
    expect(nodesOf(place(replicas(5), three, { strategy: "pack" }))).toEqual({
      "app-0": "n1",
      "app-1": "n1",
      "app-2": "n1",
      "app-3": "n1",
      "app-4": "n2",
    });
  });

  it("pack counts memory too, and when nothing fits takes the least loaded node", () => {
    const big = (name: string) => ({ ...c(name, "db", 0.1), memoryBytes: 3 * GB });
    expect(nodesOf(place([big("db-0"), big("db-1")], three, { strategy: "pack" }))).toEqual({ "db-0": "n1", "db-1": "n2" });
    expect(nodesOf(place(replicas(3, 2), [node("a"), node("b")], { strategy: "pack" }))).toEqual({
      "app-0": "a",
      "app-1": "b",
      "app-2": "a",
    });
  });

  it("pin puts every container of a role on the named node; the others spread around it", () => {
    const r = nodesOf(place([...replicas(2), c("db-0", "db")], three, { pin: { db: "n3" } }));
    expect(r["db-0"]).toBe("n3");
    expect([r["app-0"], r["app-1"]]).toEqual(["n1", "n2"]);
  });

  it("a pinned node must exist and take containers", () => {
    expect(place(replicas(1), three, { pin: { app: "n9" } })).toEqual({
      ok: false,
      issues: [
        {
          path: "topology.placement.pin.app",
          message: "topology.placement.pin.app: node n9 is not a node of this engine (its nodes: n1, n2, n3)",
        },
      ],
    });
    const drained = [node("n1"), node("n2", 2, { availability: "drain" })];
    const r = place(replicas(1), drained, { pin: { app: "n2" } });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0]!.message).toMatch(/node n2 takes no containers \(drain, ready\)/);
  });

  it("never places on a drained, paused or down node", () => {
    const nodes = [node("n1", 2, { availability: "drain" }), node("n2"), node("n3", 2, { state: "down" })];
    expect(Object.values(nodesOf(place(replicas(3), nodes)))).toEqual(["n2", "n2", "n2"]);
    const none = place(replicas(1), [node("n1", 2, { availability: "pause" })]);
    expect(!none.ok && none.issues[0]).toMatchObject({ path: "engine" });
  });

  it("loadgen.separate keeps the generators off the system's nodes and spreads them over the rest", () => {
    const gens = [c("loadgen-0", "loadgen", 1), c("loadgen-1", "loadgen", 1)];
    const nodes = [...three, node("n4")];
    const r = nodesOf(
      place([...replicas(2), c("lb-0", "lb"), ...gens], nodes, { pin: { app: "n1", lb: "n2" }, loadgen: { separate: true } }),
    );
    expect([r["loadgen-0"], r["loadgen-1"]]).toEqual(["n3", "n4"]);
  });

  it("a node the generators are pinned to is kept free of the system when they are separate", () => {
    const r = nodesOf(place([...replicas(3), c("loadgen-0", "loadgen")], three, { pin: { loadgen: "n2" }, loadgen: { separate: true } }));
    expect(r).toEqual({ "app-0": "n1", "app-1": "n3", "app-2": "n1", "loadgen-0": "n2" });
  });

  it("without separate, several generators still follow the strategy (spread)", () => {
    const r = nodesOf(place([c("loadgen-0", "loadgen", 1), c("loadgen-1", "loadgen", 1)], three));
    expect(r["loadgen-0"]).not.toBe(r["loadgen-1"]);
  });

  it("loadgen.separate needs a node free of the system under test", () => {
    const r = place([...replicas(3), c("loadgen-0", "loadgen")], three, { loadgen: { separate: true } });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0]).toMatchObject({
      path: "topology.placement.loadgen.separate",
      message: expect.stringMatching(
        /needs a node free of the system under test, which is placed on n1, n2, n3: all 3 node\(s\) that take containers/,
      ),
    });
    const pinned = place([...replicas(1), c("loadgen-0", "loadgen")], three, {
      pin: { loadgen: "n1", app: "n1" },
      loadgen: { separate: true },
    });
    expect(!pinned.ok && pinned.issues[0]!.message).toMatch(/pinned to node n1, which also runs the system under test/);
  });

  it("a replica with a network holder planned before the replicas keeps its index's place in the spread", () => {
    // The plan lists a fault target's holder first; app-1 must still land on the second node.
    const cs = [c("netns-app-1", "netns", 0), ...replicas(3).map((r) => (r.name === "app-1" ? { ...r, networkOf: "netns-app-1" } : r))];
    expect(nodesOf(place(cs, three))).toMatchObject({ "app-0": "n1", "app-1": "n2", "netns-app-1": "n2", "app-2": "n3" });
  });

  it("containers that join another's network go where their holder goes, counted as the role that joins", () => {
    const cs = [
      c("netns-app-1", "netns", 0),
      c("app-0", "app"),
      c("app-1", "app", 0.5, "netns-app-1"),
      c("proxy-app-1", "proxy", 0.1, "netns-app-1"),
      c("app-2", "app"),
    ];
    const r = nodesOf(place(cs, three));
    expect(r["app-1"]).toBe(r["netns-app-1"]);
    expect(r["proxy-app-1"]).toBe(r["netns-app-1"]);
    expect(new Set([r["app-0"], r["app-1"], r["app-2"]]).size).toBe(3);
    expect(nodesOf(place(cs, three, { pin: { app: "n2" } }))["netns-app-1"]).toBe("n2");
  });

  it("on one node everything is on it", () => {
    const r = nodesOf(place([...replicas(4), c("loadgen-0", "loadgen")], [node("local", 2)], { strategy: "spread" }));
    expect(new Set(Object.values(r))).toEqual(new Set(["local"]));
  });
});
