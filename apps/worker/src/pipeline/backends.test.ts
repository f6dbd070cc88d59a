import { describe, expect, it } from "vitest";
import { BackendNamer } from "./backends";

describe("BackendNamer", () => {
  it("names addresses after the replicas, looking again (at most every 2 s) for an address it does not know", async () => {
    let now = 0;
    const answers: Record<string, string>[] = [{ "172.18.0.5": "app-0" }, { "172.18.0.6": "app-1" }];
    let lookups = 0;
    const namer = new BackendNamer(
      "balancer",
      async () => answers[Math.min(lookups++, answers.length - 1)]!,
      () => now,
    );
    expect(await namer.name({ backends: { "172.18.0.5:8080": 3, balancer: 1 } })).toEqual({ backends: { "app-0": 3, balancer: 1 } });
    expect(lookups).toBe(1);
    // app-1 came back at a new address: not looked for again within 2 s, so kept as it came...
    now = 1_000;
    expect(await namer.one("172.18.0.6:8080")).toBe("172.18.0.6:8080");
    expect(lookups).toBe(1);
    // ...then found; what was known stays known.
    now = 2_500;
    expect(await namer.one("172.18.0.6:8080")).toBe("app-1");
    expect(await namer.one("172.18.0.5:8080")).toBe("app-0");
    expect(lookups).toBe(2);
  });

  it("leaves the lab's own servers' names alone, never looking anything up", async () => {
    const namer = new BackendNamer("header", () => Promise.reject(new Error("no lookup")));
    const sample = { t: 0, backends: { "app-0": 2 } };
    expect(await namer.name(sample)).toBe(sample);
  });

  it("keeps the values as they came when the lookup fails", async () => {
    const namer = new BackendNamer("address", () => Promise.reject(new Error("engine gone")));
    expect(await namer.one("172.18.0.5:8080")).toBe("172.18.0.5:8080");
  });
});
