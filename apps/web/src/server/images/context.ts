import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, rm } from "node:fs/promises";
import path from "node:path";
import { createGunzip } from "node:zlib";
import { ByteBudget, isGzip, isRootDockerfile } from "@scalelab/scenarios/images";
import { extract } from "tar-stream";

export class ContextTooLargeError extends Error {
  override readonly name = "ContextTooLargeError";
  constructor(readonly limit: number) {
    super(`the build context is larger than ${limit} bytes`);
  }
}

/** A build context written to a file of its own, removed by `remove` (or `await using`). */
export type SpooledContext = {
  file: string;
  bytes: number;
  gzip: boolean;
  remove(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

/**
 * Writes a request body to a new file in `dir` chunk by chunk, stopping (the body cancelled, the
 * file removed) as soon as it passes `limit` bytes: no more than the limit is ever stored, and
 * nothing is left of a refused upload.
 */
export async function spoolContext(body: ReadableStream<Uint8Array> | null, limit: number, dir: string): Promise<SpooledContext> {
  const file = path.join(dir, `scalelab-context-${randomUUID()}`);
  const remove = () => rm(file, { force: true });
  const handle = await open(file, "wx", 0o600);
  const budget = new ByteBudget(limit);
  let head: Uint8Array | undefined;
  const reader = body?.getReader();
  try {
    for (;;) {
      if (!reader) break;
      const { done, value } = await reader.read();
      if (done) break;
      if (!budget.add(value.byteLength)) {
        await reader.cancel().catch(() => {});
        throw new ContextTooLargeError(limit);
      }
      head ??= value;
      await handle.write(value);
    }
    await handle.close();
  } catch (err) {
    await handle.close().catch(() => {});
    await remove();
    throw err;
  }
  return { file, bytes: budget.total, gzip: head !== undefined && isGzip(head), remove, [Symbol.asyncDispose]: remove };
}

export type ContextCheck = { ok: true } | { ok: false; reason: "not_tar" | "no_dockerfile" };

/**
 * Whether a spooled context is a tar archive (gzip-compressed or not) with a Dockerfile at its
 * root; reads no further than the Dockerfile's header.
 */
export async function checkContext(context: Pick<SpooledContext, "file" | "gzip" | "bytes">): Promise<ContextCheck> {
  if (context.bytes === 0) return { ok: false, reason: "not_tar" };
  const source = createReadStream(context.file);
  const input = context.gzip ? source.pipe(createGunzip()) : source;
  const tar = extract();
  source.on("error", (err: Error) => tar.destroy(err));
  input.on("error", (err: Error) => tar.destroy(err));
  input.pipe(tar);
  try {
    for await (const entry of tar) {
      if (isRootDockerfile(entry.header)) return { ok: true };
      entry.resume();
    }
    return { ok: false, reason: "no_dockerfile" };
  } catch {
    return { ok: false, reason: "not_tar" };
  } finally {
    input.unpipe(tar);
    source.destroy();
    if (input !== source) input.destroy();
  }
}
