import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { QUIET, SWARM, splitLanes } from "./lanes";

const src = join(dirname(fileURLToPath(import.meta.url)), "..");
const files = readdirSync(src)
  .filter((f) => f.endsWith(".integration.test.ts"))
  .map((f) => `src/${f}`);

describe("the integration lanes", () => {
  it("put every integration file in exactly one lane", () => {
    const { quiet, swarm, shared } = splitLanes(files, 2);
    const all = [...quiet, ...swarm, ...shared.flat()];
    expect(all.sort()).toEqual([...files].sort());
    expect(new Set(all).size).toBe(all.length);
    expect(quiet).toHaveLength(QUIET.length);
    expect(swarm).toHaveLength(SWARM.length);
  });

  it("balance the shared lanes by their files' seconds, a new file included", () => {
    const { shared } = splitLanes(
      [
        ...QUIET.map((q) => `src/${q}.integration.test.ts`),
        "src/balancers.integration.test.ts",
        "src/a.integration.test.ts",
        "src/b.integration.test.ts",
        "src/faults-kill.integration.test.ts",
      ],
      2,
      [0, 0],
    );
    // balancers (189 s) alone; the two unknown files (30 s each) and faults-kill (13 s) in the other.
    expect(shared).toEqual([
      ["src/balancers.integration.test.ts"],
      ["src/a.integration.test.ts", "src/b.integration.test.ts", "src/faults-kill.integration.test.ts"],
    ]);
  });

  it("start each lane with what it runs besides its files", () => {
    const quiet = QUIET.map((q) => `src/${q}.integration.test.ts`);
    const two = [...quiet, "src/a.integration.test.ts", "src/b.integration.test.ts"];
    // Lane 2 starts 100 s behind: both 30 s files go to lane 1.
    expect(splitLanes(two, 2, [0, 100]).shared).toEqual([["src/a.integration.test.ts", "src/b.integration.test.ts"], []]);
    expect(splitLanes(two, 2, [0, 0]).shared).toEqual([["src/a.integration.test.ts"], ["src/b.integration.test.ts"]]);
  });

  it("refuse a quiet name with no file, naming it", () => {
    expect(() => splitLanes(["src/balancers.integration.test.ts"], 2)).toThrow(
      /quiet integration file\(s\) not found: host-noise, components-throughput/,
    );
  });
});
