import type { AnyRouter } from "@trpc/server";
import type { AuthResult } from "./auth/auth";
import type { Context } from "./trpc";
/**
 * What /api/v1 (REST) and /api/trpc agree on about request bodies: the size limit, which media
 * type is JSON, reading a body without ever holding more than the limit, and telling a browser's
 * cross-site request from a same-origin or non-browser one.
 */

/** The largest request body either API reads: 1 MiB. */
export const MAX_BODY_BYTES = 1_048_576;

/**
 * The deepest nesting of JSON objects and arrays either API reads. A run definition nests 5
 * levels (`faults[i].target.role`), an experiment's variant patch 7; 10,000 levels would
 * exhaust the stack of any recursive code that walks a value (a key check, a merge, a schema).
 */
export const MAX_JSON_DEPTH = 32;

/** The media type of a Content-Type header, lower-cased and without parameters; null when absent or empty. */
export function mediaType(contentType: string | null): string | null {
  const type = contentType?.split(";", 1)[0]?.trim().toLowerCase();
  return type ? type : null;
}

/** `application/json`, with no charset or `charset=utf-8` (JSON is UTF-8, RFC 8259 §8.1). */
export function isJsonContentType(contentType: string | null): boolean {
  if (mediaType(contentType) !== "application/json") return false;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "")?.[1]?.toLowerCase();
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}

/**
 * The Content-Length header as a number of bytes: null when absent, NaN when it is not a
 * non-negative integer (the HTTP server normally refuses such requests before they get here).
 */
export function declaredLength(req: Request): number | null {
  const raw = req.headers.get("content-length");
  if (raw === null) return null;
  return /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
}

export class JsonTooDeepError extends Error {
  override readonly name = "JsonTooDeepError";
  constructor(readonly limit: number) {
    super(`The request's JSON nests objects and arrays more than ${limit} levels deep; at most ${limit} levels are accepted`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * Counts the nesting of JSON objects and arrays in text fed to it chunk by chunk, without
 * parsing it and without recursion: brackets inside strings are skipped, and `feed` throws
 * JsonTooDeepError as soon as the depth passes `limit`. Works on UTF-8 bytes as on UTF-16 code
 * units, since the characters it looks at are ASCII and never part of a multi-byte sequence.
 * It does not validate the JSON (JSON.parse does, after it); for valid JSON the depth it counts
 * is exact.
 */
export class JsonDepthGauge {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(readonly limit: number = MAX_JSON_DEPTH) {}

  feed(chunk: Uint8Array | string): void {
    const text = typeof chunk === "string";
    for (let i = 0; i < chunk.length; i++) {
      const c = text ? chunk.charCodeAt(i) : chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) {
        this.inString = true;
      } else if (OPEN.has(c)) {
        if (++this.depth > this.limit) throw new JsonTooDeepError(this.limit);
      } else if (CLOSE.has(c)) {
        this.depth--;
      }
    }
  }
}

/** Throws JsonTooDeepError when the JSON text nests objects and arrays more than `limit` levels deep. */
export function checkJsonDepth(json: Uint8Array | string, limit: number = MAX_JSON_DEPTH): void {
  new JsonDepthGauge(limit).feed(json);
}

export class BodyTooLargeError extends Error {
  override readonly name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`the request body is larger than ${limit} bytes`);
  }
}

/**
 * The body's bytes, read chunk by chunk and abandoned as soon as they pass `limit`: a
 * Content-Length over the limit fails before anything is read, and a body streamed without one
 * is counted, so no more than `limit` bytes (plus one chunk) are ever held.
 */
export async function readBody(req: Request, limit: number = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = declaredLength(req);
  if (declared !== null && declared > limit) {
    await req.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(limit);
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return bytes;
}

/**
 * The same request with a body that errors with `tooLarge()` once more than `limit` bytes have
 * passed (or at once, unread, when Content-Length says so): for handlers that read the body
 * themselves, such as tRPC's. This is what tRPC's own Node adapter does with `maxBodySize`.
 * With `depth`, the body also errors with `depth.error()` as soon as its JSON nests deeper than
 * `depth.limit` (JsonDepthGauge), before the handler parses it.
 */
export function withBodyLimit(req: Request, limit: number, tooLarge: () => Error, depth?: { limit: number; error: () => Error }): Request {
  const source = req.body;
  if (!source) return req;
  const declared = declaredLength(req);
  const gauge = depth ? new JsonDepthGauge(depth.limit) : null;
  let size = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (declared !== null && declared > limit) {
        await source.cancel().catch(() => {});
        controller.error(tooLarge());
        return;
      }
      reader ??= source.getReader();
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        controller.error(tooLarge());
        return;
      }
      try {
        gauge?.feed(value);
      } catch (err) {
        if (!(err instanceof JsonTooDeepError)) throw err;
        await reader.cancel().catch(() => {});
        controller.error(depth!.error());
        return;
      }
      controller.enqueue(value);
    },
    async cancel(reason) {
      await (reader ? reader.cancel(reason) : source.cancel(reason)).catch(() => {});
    },
  });
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body,
    signal: req.signal,
    // Required by Node's fetch for a streamed request body.
    duplex: "half",
  } as RequestInit);
}

/**
 * Whether a browser sent this request from a page of another origin. Browsers send
 * Sec-Fetch-Site on every request (and Origin on every POST); curl and other programs send
 * neither, and then the request is not a cross-site one.
 */
export function isCrossSiteBrowserRequest(req: Pick<Request, "headers" | "url">): boolean {
  const site = req.headers.get("sec-fetch-site");
  if (site !== null) return site !== "same-origin" && site !== "none";
  const origin = req.headers.get("origin");
  if (origin === null) return false;
  try {
    return origin !== new URL(req.url).origin;
  } catch {
    return true;
  }
}

/**
 * Set by server/methods.ts on a request whose method Next.js cannot route (TRACE, QUERY, …),
 * which reaches the handlers as another method; removed from every other request first.
 */
export const ORIGINAL_METHOD_HEADER = "x-scalelab-original-method";

/** The request's method as the client sent it, also when server/methods.ts handed it on as another. */
export function requestMethod(req: Request): string {
  return req.headers.get(ORIGINAL_METHOD_HEADER) ?? req.method;
}

/** What the REST and the tRPC handlers are built from. */
export type ApiHandlerOptions = {
  router: AnyRouter;
  createContext: () => Context | Promise<Context>;
  /** Default MAX_BODY_BYTES (1 MiB). */
  maxBodyBytes?: number;
  /** The deepest nesting of JSON objects and arrays in a request; default MAX_JSON_DEPTH. */
  maxJsonDepth?: number;
  /** Where unexpected errors go; clients only ever get a generic message. Default console.error. */
  log?: (message: string, error: unknown) => void;
  /** Who is calling (server/auth): a refusal is answered before anything else. Default: anyone. */
  authenticate?: (req: Request) => Promise<AuthResult>;
};
