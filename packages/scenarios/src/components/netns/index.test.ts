import { describe, expect, it } from "vitest";
import { buildPlan, tiers } from "../../plan/plan";
import { ZRunCreate, TRunCreateInput } from "../../contract/run";
import { LAB_IMAGES } from "../types";
import { dialedPorts } from "../ports";

const images = Object.fromEntries(LAB_IMAGES.map((i) => [i, `scalelab/${i}:test`]));
const plan = (faults: TRunCreateInput["faults"]) =>
  buildPlan({
    runId: "cm3x9k2a-netns",
    run: ZRunCreate.parse({
      topology: { service: { replicas: 2 }, balancer: { kind: "nginx" } },
      workload: { vus: 1, durationSeconds: 60 },
      faults,
    }),
    images,
  });

describe("network holders", () => {
  it("a stopped, killed or restarted target joins a holder that keeps its address and names", () => {
    const p = plan([
      { at: 5, action: "stop", target: { role: "app", index: 1 } },
      { at: 9, action: "start", target: { role: "app", index: 1 } },
      { at: 10, action: "kill", target: { role: "lb", index: 0 } },
      { at: 12, action: "start", target: { role: "lb", index: 0 } },
    ]);
    const holder = p.containers.find((c) => c.name === "sl-cm3x9k2a-netns-app-1")!;
    expect(holder).toMatchObject({
      role: "netns",
      hostname: "app-1",
      aliases: ["app-1", "app", "sl-cm3x9k2a-app-1"],
      image: "scalelab/testbed:test",
      entrypoint: ["sleep", "infinity"],
      labels: { "scalelab.run": "cm3x9k2a-netns", "scalelab.role": "netns", "scalelab.managed": "true" },
      ready: [],
    });
    expect(p.containers.find((c) => c.name === "sl-cm3x9k2a-app-1")).toMatchObject({
      aliases: [],
      networkOf: holder.name,
      hostname: "app-1",
    });
    expect(p.containers.find((c) => c.name === "sl-cm3x9k2a-lb-0")).toMatchObject({ networkOf: "sl-cm3x9k2a-netns-lb-0" });
    // On a cluster the worker reaches the target's probes and figures through the holder's published ports.
    const target = p.containers.find((c) => c.name === "sl-cm3x9k2a-app-1")!;
    expect(holder.publish).toEqual(dialedPorts(target));
    expect(holder.publish).toContain(8080);
    expect(tiers(p).map((t) => t.map((c) => c.role))).toEqual([["netns"], ["app", "app"], ["netns"], ["lb"]]);
    // The other replica and the backends' names are as without faults.
    expect(p.containers.find((c) => c.name === "sl-cm3x9k2a-app-0")).toMatchObject({ aliases: ["app-0", "app"] });
    expect(p.backends).toEqual(["app-0", "app-1"]);
  });

  it("pause and network faults need no holder", () => {
    const p = plan([
      { at: 5, action: "pause", target: { role: "app", index: 1 } },
      { at: 9, action: "unpause", target: { role: "app", index: 1 } },
    ]);
    expect(p.containers.map((c) => c.role)).not.toContain("netns");
  });

  it("behind a network-fault proxy too, the proxy dials the holder by the target's container name", () => {
    const p = plan([
      { at: 5, action: "delay", ms: 50, target: { role: "app", index: 0 } },
      { at: 9, action: "restart", target: { role: "app", index: 0 } },
    ]);
    const holder = p.containers.find((c) => c.role === "netns")!;
    expect(holder.aliases).toEqual(["sl-cm3x9k2a-app-0"]);
    const proxy = p.containers.find((c) => c.role === "proxy")!;
    expect(JSON.parse(proxy.files[0]!.content)[0].upstream).toBe("sl-cm3x9k2a-app-0:8080");
  });
});
