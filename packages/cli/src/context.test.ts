import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contextEntries, ignorePatterns, packContext } from "./context";
import { UsageError } from "./errors";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "scalelab-cli-context-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function files(tree: Record<string, string | Buffer>) {
  for (const [name, text] of Object.entries(tree)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
}

async function unpack(body: Buffer): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const ex = extract();
  ex.on("entry", (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: unknown) => chunks.push(c as Buffer));
    stream.on("end", () => {
      out[header.name] =
        header.type === "file" ? Buffer.concat(chunks).toString() : `<${header.type}${header.linkname ? ` ${header.linkname}` : ""}>`;
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => ex.on("finish", () => resolve()).on("error", reject));
  Readable.from(body).pipe(createGunzip()).pipe(ex);
  await done;
  return out;
}

describe("the build context", () => {
  it("reads .dockerignore as docker build does: comments and blank lines are no patterns", () => {
    expect(ignorePatterns("# deps\nnode_modules\n\n  *.log  \r\n!keep.log\n")).toEqual(["node_modules", "*.log", "!keep.log"]);
  });

  it("leaves out what .dockerignore excludes, keeps its exceptions, the Dockerfile and the .dockerignore", async () => {
    await files({
      Dockerfile: "FROM scratch\n",
      ".dockerignore": "node_modules\n**/*.log\n!important.log\nDockerfile\n.dockerignore\nsecret/\n",
      "app.py": "print(1)\n",
      "node_modules/x/index.js": "x",
      "logs/a.log": "a",
      "important.log": "kept",
      "secret/key": "k",
      "src/lib/util.py": "u",
    });
    const body = (await packContext(dir)).body;
    expect(Object.keys(await unpack(body)).sort()).toEqual([
      ".dockerignore",
      "Dockerfile",
      "app.py",
      "important.log",
      "logs",
      "src",
      "src/lib",
      "src/lib/util.py",
    ]);
  });

  it("enters an excluded directory only when an exception may bring something back from it", async () => {
    await files({ Dockerfile: "FROM scratch\n", ".dockerignore": "data\n!data/keep.txt\n", "data/drop.txt": "d", "data/keep.txt": "k" });
    expect((await contextEntries(dir)).map((e) => e.name)).toEqual([".dockerignore", "Dockerfile", "data/keep.txt"]);
  });

  it("sends everything without a .dockerignore, symbolic links as links, with the files' bytes", async () => {
    await files({ Dockerfile: "FROM scratch\nCOPY . /\n", "a/b.txt": "bee" });
    await symlink("a/b.txt", path.join(dir, "link"));
    expect(await unpack((await packContext(dir)).body)).toEqual({
      Dockerfile: "FROM scratch\nCOPY . /\n",
      a: "<directory>",
      "a/b.txt": "bee",
      link: "<symlink a/b.txt>",
    });
  });

  it("refuses a directory without a Dockerfile, and one that does not exist, before any upload", async () => {
    await files({ "app.py": "x" });
    await expect(packContext(dir)).rejects.toThrow(/no Dockerfile in the directory/);
    await expect(packContext(path.join(dir, "nope"))).rejects.toBeInstanceOf(UsageError);
  });

  it("stops packing as soon as the compressed context passes the lab's limit", async () => {
    await files({ Dockerfile: "FROM scratch\n", "big.bin": randomBytes(64 * 1024) });
    await expect(packContext(dir, 4096)).rejects.toThrow(/passes 4 KiB compressed, the most the lab takes/);
  });
});
