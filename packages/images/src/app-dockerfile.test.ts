import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The app image of docker-compose.yml (packages/images/app/Dockerfile) against the workspace it
// builds: drift here breaks `docker compose up` only, which no other unit test would notice.
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
const dockerfile = read("packages/images/app/Dockerfile");
const arg = (name: string) => new RegExp(`^ARG ${name}=(\\S+)$`, "m").exec(dockerfile)?.[1];

/** The workspace's package folders (pnpm-workspace.yaml's `dir/*` globs) that hold a package.json. */
function workspacePackages(): string[] {
  const globs = [...read("pnpm-workspace.yaml").matchAll(/^\s*-\s*["']?([\w.-]+)\/\*["']?\s*$/gm)].map((m) => m[1]!);
  expect(globs.length).toBeGreaterThan(0);
  return globs.flatMap((dir) =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(path.join(ROOT, dir, e.name, "package.json")))
      .map((e) => `${dir}/${e.name}`),
  );
}

describe("the app image's Dockerfile", () => {
  it("copies every workspace package's manifest into the dependencies' layer, and no other", () => {
    const copied = [...dockerfile.matchAll(/^COPY (\S+)\/package\.json /gm)].map((m) => m[1]!).sort();
    expect(copied).toEqual(workspacePackages().sort());
  });

  it("installs the pnpm the repository pins and a Node.js its engines field accepts", () => {
    const pinned = /"packageManager": "pnpm@([\d.]+)"/.exec(read("package.json"))?.[1];
    expect(arg("PNPM_VERSION")).toBe(pinned);
    expect(read("scripts/lib.sh")).toContain(`PNPM_VERSION=${pinned}\n`);
    const [major, minor] = (arg("NODE_VERSION") ?? "").split(".").map(Number);
    const engines = /"node": ">=(\d+)\.(\d+)"/.exec(read("package.json"));
    expect(engines).not.toBeNull();
    expect(major! > Number(engines![1]) || (major === Number(engines![1]) && minor! >= Number(engines![2]))).toBe(true);
    expect(arg("NODE_SHA512")).toMatch(/^[0-9a-f]{128}$/);
    expect(arg("PNPM_SHA512")).toMatch(/^[0-9a-f]{128}$/);
  });

  it("builds FROM the base image argument, the lab's base by default", () => {
    expect(arg("BASE_IMAGE")).toBe("scalelab/base:bookworm");
    expect(dockerfile).toMatch(/^FROM \$\{BASE_IMAGE\}$/m);
  });

  it("keeps the secrets and the host's build output out of the build context", () => {
    const ignored = read(".dockerignore").split("\n");
    // The host's builds and typechecks write these: in the context, each would rebuild the web for nothing.
    const output = ["**/node_modules", "**/.next", "**/.next-*", "**/.turbo", "**/*.tsbuildinfo", ".scalelab", "packages/db/src/generated"];
    for (const pattern of [".env", ".env.*", ...output]) {
      expect(ignored).toContain(pattern);
    }
  });
});
