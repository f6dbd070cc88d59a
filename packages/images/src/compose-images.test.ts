import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// scripts/compose-check.sh deploys docker-compose.yml beside a real deployment on the same engine:
// every image it builds must be tagged from the environment, and the check must give each its own
// tag, else its build replaces the real deployment's image under the same tag.
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

describe("docker-compose.yml's images", () => {
  const images = [...read("docker-compose.yml").matchAll(/^\s+image:\s*(\S+)\s*$/gm)].map((m) => m[1]!);

  it("are each tagged from a variable with the deployment's default", () => {
    expect(images.length).toBeGreaterThanOrEqual(3);
    for (const image of images) expect(image).toMatch(/^\$\{SCALELAB_[A-Z]+_IMAGE:-scalelab\/[\w.-]+:local\}$/);
  });

  it("get tags of their own in scripts/compose-check.sh", () => {
    const check = read("scripts/compose-check.sh");
    const vars = [...new Set(images.map((i) => /^\$\{(\w+):-(\S+)\}$/.exec(i)))];
    for (const m of vars) {
      const [, name, fallback] = m!;
      const set = new RegExp(`^export ${name}="([^"]+)"$`, "m").exec(check)?.[1];
      expect(set, `${name} in scripts/compose-check.sh`).toBeDefined();
      expect(set).not.toBe(fallback);
      expect(set).toMatch(/:compose-test$/);
    }
  });
});
