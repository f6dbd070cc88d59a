/** The largest build context `POST /images` takes: 200 MiB. */
export const MAX_CONTEXT_BYTES = 200 * 1024 * 1024;

/** The Dockerfile the build reads, at the root of the context. */
export const DOCKERFILE = "Dockerfile";

/** Whether the bytes start like gzip (RFC 1952's magic 1f 8b). */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Whether a tar entry is the context's Dockerfile: `Dockerfile` or `./Dockerfile`, a regular file. */
export function isRootDockerfile(entry: { name: string; type?: string | null }): boolean {
  const type = entry.type ?? "file";
  if (type !== "file" && type !== "contiguous-file") return false;
  return entry.name.replace(/^(\.\/)+/, "") === DOCKERFILE;
}

/**
 * Counts the bytes of a body as they arrive: `add` says false as soon as the total passes the
 * limit, so the caller stops reading there and never holds or stores more.
 */
export class ByteBudget {
  total = 0;

  constructor(readonly limit: number) {}

  add(bytes: number): boolean {
    this.total += bytes;
    return this.total <= this.limit;
  }
}

/** A size in bytes for people: 200 MiB, 1.5 KiB. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}
