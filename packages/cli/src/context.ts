import { createReadStream } from "node:fs";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import dockerignore from "@balena/dockerignore";
import { DOCKERFILE, formatBytes, MAX_CONTEXT_BYTES } from "@scalelab/scenarios/images";
import { pack } from "tar-stream";
import { UsageError } from "./errors";

const DOCKERIGNORE = ".dockerignore";

/** A .dockerignore's patterns: comments and blank lines dropped, as docker build reads them. */
export function ignorePatterns(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

export type ContextEntry = { name: string; type: "file" | "directory" | "symlink"; full: string; mode: number; size: number; mtime: Date };

/**
 * The entries of a build context, as `docker build` sends them: everything under `dir` but what
 * its .dockerignore excludes (Docker's rules, @balena/dockerignore), the Dockerfile and the
 * .dockerignore always. The lab's upload builds what it receives, so the CLI filters here, as the
 * docker client does. An excluded directory is not entered unless an exception (`!pattern`)
 * could bring something back inside it. Sorted by name: the same directory packs the same way.
 */
export async function contextEntries(dir: string): Promise<ContextEntry[]> {
  const root = path.resolve(dir);
  const patterns = await readFile(path.join(root, DOCKERIGNORE), "utf8").then(ignorePatterns, () => []);
  const ig = dockerignore().add(patterns);
  const exceptions = patterns.some((p) => p.startsWith("!"));
  const keep = (name: string) => name === DOCKERFILE || name === DOCKERIGNORE || !ig.ignores(name);
  const entries: ContextEntry[] = [];

  async function walk(rel: string): Promise<void> {
    const names = (await readdir(path.join(root, rel))).sort();
    for (const base of names) {
      const name = rel ? `${rel}/${base}` : base;
      const full = path.join(root, name);
      const st = await lstat(full);
      const kept = keep(name);
      if (st.isDirectory()) {
        if (kept) entries.push({ name, type: "directory", full, mode: st.mode & 0o7777, size: 0, mtime: st.mtime });
        if (kept || exceptions) await walk(name);
      } else if (!kept) {
        continue;
      } else if (st.isSymbolicLink()) {
        entries.push({ name, type: "symlink", full, mode: st.mode & 0o7777, size: 0, mtime: st.mtime });
      } else if (st.isFile()) {
        entries.push({ name, type: "file", full, mode: st.mode & 0o7777, size: st.size, mtime: st.mtime });
      }
      // Sockets, FIFOs and devices are no part of a build context (docker build skips them too).
    }
  }
  await walk("");
  return entries;
}

/** The build context of `dir` as a tar.gz, refused before any upload when it has no Dockerfile or is too large for the lab. */
export async function packContext(dir: string, limit = MAX_CONTEXT_BYTES): Promise<{ body: Buffer; files: number }> {
  const st = await lstat(dir).catch(() => null);
  if (!st?.isDirectory()) throw new UsageError(`images push ${dir}: no such directory`);
  const entries = await contextEntries(dir);
  if (!entries.some((e) => e.name === DOCKERFILE && e.type === "file")) {
    throw new UsageError(`images push ${dir}: no ${DOCKERFILE} in the directory (the lab builds the directory's ${DOCKERFILE})`);
  }
  const tar = pack();
  const gzip = tar.pipe(createGzip());
  const chunks: Buffer[] = [];
  let size = 0;
  // Collected as it is compressed, and stopped as soon as it passes the limit: nothing larger is held or sent.
  const collected = new Promise<void>((resolve, reject) => {
    gzip.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(
          new UsageError(
            `images push ${dir}: the context passes ${formatBytes(limit)} compressed, the most the lab takes (exclude more in ${DOCKERIGNORE})`,
          ),
        );
        tar.destroy();
        gzip.destroy();
      } else chunks.push(chunk);
    });
    gzip.on("end", resolve);
    gzip.on("error", reject);
  });
  collected.catch(() => {});
  try {
    for (const e of entries) {
      const header = { name: e.name, mode: e.mode, mtime: e.mtime };
      if (e.type === "directory") tar.entry({ ...header, type: "directory" });
      else if (e.type === "symlink") tar.entry({ ...header, type: "symlink", linkname: await readlink(e.full) });
      else await pipeline(createReadStream(e.full), tar.entry({ ...header, type: "file", size: e.size }));
    }
    tar.finalize();
  } catch (err) {
    // Packing stopped because the size passed the limit: that is the error to tell.
    if (size > limit) await collected;
    tar.destroy();
    gzip.destroy();
    throw err;
  }
  await collected;
  const body = Buffer.concat(chunks);
  return { body, files: entries.filter((e) => e.type !== "directory").length };
}
