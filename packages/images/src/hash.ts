import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";

export type HashedFile = { path: string; content: string | Buffer; executable?: boolean };

/** First 12 hex of SHA-256 over the files (sorted by path, with their executable bit) and the parent image tag. */
export function contextHash(files: HashedFile[], parentTag: string): string {
  const hash = createHash("sha256");
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of sorted) {
    const content = typeof file.content === "string" ? Buffer.from(file.content) : file.content;
    // Length prefixes keep ("ab","c") and ("a","bc") apart.
    hash.update(`${file.path.length}:${file.path}${file.executable ? "*" : ""}\n${content.length}:`);
    hash.update(content);
    hash.update("\n");
  }
  hash.update(`parent:${parentTag}`);
  return hash.digest("hex").slice(0, 12);
}

/** Every regular file under `dir` with its path relative to `dir` (POSIX separators). */
export async function readTree(dir: string, skip: (relPath: string) => boolean = () => false): Promise<HashedFile[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: HashedFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    const rel = path.relative(dir, abs).split(path.sep).join("/");
    if (skip(rel)) continue;
    const executable = ((await stat(abs)).mode & 0o111) !== 0;
    files.push({ path: rel, content: await readFile(abs), ...(executable && { executable }) });
  }
  return files;
}
