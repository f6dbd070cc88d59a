import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { contextHash, readTree } from "./hash";

const files = [
  { path: "Dockerfile", content: "FROM ${BASE_IMAGE}\n" },
  { path: "entrypoint.sh", content: '#!/bin/sh\nexec "$@"\n' },
];

describe("contextHash", () => {
  it("is 12 hex and stable regardless of file order", () => {
    const hash = contextHash(files, "scalelab/base:abc");
    expect(hash).toMatch(/^[0-9a-f]{12}$/);
    expect(contextHash([...files].reverse(), "scalelab/base:abc")).toBe(hash);
  });

  it("changes when a file's content, a file's name or the file set changes", () => {
    const hash = contextHash(files, "p");
    expect(contextHash([{ ...files[0]!, content: "FROM x\n" }, files[1]!], "p")).not.toBe(hash);
    expect(contextHash([{ ...files[0]!, path: "Dockerfile.x" }, files[1]!], "p")).not.toBe(hash);
    expect(contextHash([files[0]!], "p")).not.toBe(hash);
    expect(contextHash([files[0]!, { ...files[1]!, executable: true }], "p")).not.toBe(hash);
  });

  it("changes when the parent tag changes", () => {
    expect(contextHash(files, "scalelab/base:aaa")).not.toBe(contextHash(files, "scalelab/base:bbb"));
  });

  it("does not confuse content moved across a file boundary", () => {
    const a = contextHash(
      [
        { path: "a", content: "xy" },
        { path: "b", content: "z" },
      ],
      "",
    );
    const b = contextHash(
      [
        { path: "a", content: "x" },
        { path: "b", content: "yz" },
      ],
      "",
    );
    expect(a).not.toBe(b);
  });
});

describe("readTree", () => {
  it("lists nested files with POSIX relative paths and honours skip", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "scalelab-hash-"));
    try {
      await mkdir(path.join(dir, "internal/server"), { recursive: true });
      await mkdir(path.join(dir, "bin"));
      await writeFile(path.join(dir, "main.go"), "package main\n");
      await writeFile(path.join(dir, "internal/server/server.go"), "package server\n");
      await writeFile(path.join(dir, "bin/testbed"), "binary");
      await writeFile(path.join(dir, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
      const tree = await readTree(dir, (p) => p.startsWith("bin/"));
      expect(tree.map((f) => f.path).sort()).toEqual(["internal/server/server.go", "main.go", "run.sh"]);
      expect(tree.find((f) => f.path === "main.go")).toEqual({ path: "main.go", content: Buffer.from("package main\n") });
      expect(tree.find((f) => f.path === "run.sh")?.executable).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
