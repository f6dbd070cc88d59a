import { tmpdir } from "node:os";
import {
  DOCKERFILE,
  formatBytes,
  MAX_CONTEXT_BYTES,
  parseImageReference,
  REFERENCE_RULE,
  type TImageBuildEvent,
} from "@scalelab/scenarios/images";
import type Docker from "dockerode";
import { AppError } from "../errors";
import { declaredLength, mediaType } from "../http";
import { invalidInputError, restError, type TRestError } from "../rest/errors";
import { INTERNAL_MESSAGE } from "../trpc";
import { buildImage, type BuildLimits, type BuildOutcome } from "./build";
import { checkContext, ContextTooLargeError, spoolContext, type SpooledContext } from "./context";
import { labImageTaken } from "./service";

/** The media types a build context may be sent as; gzip is recognised by its magic bytes, whatever the type says. */
export const CONTEXT_TYPES = ["application/x-tar", "application/gzip", "application/octet-stream"] as const;
const ACCEPTED_TYPES = new Set<string>([...CONTEXT_TYPES, "application/x-gzip", "application/tar"]);
export const NDJSON = "application/x-ndjson";

export const DEFAULT_BUILD_LIMITS: BuildLimits = { memoryBytes: 2 * 1024 ** 3, cpus: 1 };
/** What a second upload is told to wait while one builds. */
export const RETRY_AFTER_SECONDS = 15;

export type ImageUploadOptions = {
  docker: () => Docker;
  /** Default MAX_CONTEXT_BYTES (200 MiB). */
  maxContextBytes?: number;
  limits?: BuildLimits;
  /** Where the context is written while it is checked and built; default the OS's temporary directory. */
  spoolDir?: string;
  now?: () => Date;
  /** Where unexpected errors go; clients only get a generic message. */
  log?: (message: string, error: unknown) => void;
};

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: TRestError & Record<string, unknown>,
    readonly headers?: HeadersInit,
  ) {
    super(body.message);
  }
}

const invalidTag = (message: string) => new Refusal(400, invalidInputError([{ path: "tag", message }]));

/** The reference `?tag=` asks for, checked; the lab's namespace refused. */
function tagOf(url: URL): string {
  const tags = url.searchParams.getAll("tag");
  if (tags.length === 0) throw invalidTag(`tag is required: ${REFERENCE_RULE}`);
  if (tags.length > 1) throw invalidTag("tag must be given once");
  const check = parseImageReference(tags[0]!, "tag");
  if (!check.ok) throw invalidTag(check.message);
  return check.value.reference;
}

function checkContentType(req: Request): void {
  const type = mediaType(req.headers.get("content-type"));
  if (type !== null && ACCEPTED_TYPES.has(type)) return;
  const sent = type === null ? "no content-type" : `content-type "${type.slice(0, 100)}"`;
  throw new Refusal(415, {
    error: "unsupported_media_type",
    message: `Send the build context as a tar or tar.gz body with content-type ${CONTEXT_TYPES.join(", ")}; got ${sent}`,
  });
}

const tooLarge = (limit: number) =>
  new Refusal(413, {
    error: "payload_too_large",
    message: `The build context must be at most ${formatBytes(limit)} (${limit} bytes); the upload was stopped and nothing was built`,
  });

const wantsNdjson = (req: Request) => (req.headers.get("accept") ?? "").toLowerCase().includes(NDJSON);

/** The 422 of a build that failed: the engine's error and the build's last output lines. */
function buildFailed(outcome: Extract<BuildOutcome, { ok: false }>): Response {
  const body: TRestError & { lastLines: string[] } = { error: "build_failed", message: outcome.message, lastLines: outcome.lastLines };
  return restError(422, body);
}

/**
 * `POST /api/v1/images?tag=name[:tag]`: the body is a build context (a tar or tar.gz of a
 * directory with a Dockerfile), built into an image on the lab's engine. Handled here, not by a
 * tRPC procedure, because its input is a raw body of up to 200 MiB, read as a stream.
 *
 * Everything that can be refused is refused before the build, with a JSON error and its status:
 * the tag (400), the media type (415), a second upload while one is in progress (429 with
 * Retry-After), the size (413, counted while the body streams to a file of its own), a body that
 * is no tar or has no Dockerfile (422). Then the build runs, one at a time, and answers 201 with
 * the image or 422 with the build's last lines; with `Accept: application/x-ndjson` the answer
 * is a 200 stream of its steps and output lines ending with a `result` or an `error` line. A
 * client that goes away cancels the build.
 */
export function createImageUpload(opts: ImageUploadOptions): (req: Request) => Promise<Response> {
  const limit = opts.maxContextBytes ?? MAX_CONTEXT_BYTES;
  const limits = opts.limits ?? DEFAULT_BUILD_LIMITS;
  const now = opts.now ?? (() => new Date());
  const log = opts.log ?? ((message: string, error: unknown) => console.error(message, error));
  let busy = false;

  async function prepare(req: Request, reference: string, docker: Docker): Promise<SpooledContext> {
    const taken = await labImageTaken(docker, reference);
    if (taken) throw invalidTag(taken);
    const context = await spoolContext(req.body, limit, opts.spoolDir ?? tmpdir()).catch((err: unknown) => {
      throw err instanceof ContextTooLargeError ? tooLarge(limit) : err;
    });
    const check = await checkContext(context);
    if (check.ok) return context;
    await context.remove();
    throw new Refusal(422, {
      error: "invalid_context",
      message:
        check.reason === "no_dockerfile"
          ? `The build context has no ${DOCKERFILE} at its root: put one in the directory you archive (tar -C dir -czf - .)`
          : `The body is not a tar archive (nor a gzip-compressed one) of a build context with a ${DOCKERFILE}`,
    });
  }

  return async (req) => {
    let release = () => {};
    try {
      const reference = tagOf(new URL(req.url));
      checkContentType(req);
      const declared = declaredLength(req);
      if (declared !== null && declared > limit) throw tooLarge(limit);
      if (busy) {
        throw new Refusal(
          429,
          { error: "too_many_requests", message: "Another image is being built; the lab builds one at a time" },
          { "retry-after": String(RETRY_AFTER_SECONDS) },
        );
      }
      busy = true;
      let released = false;
      release = () => {
        if (!released) busy = false;
        released = true;
      };
      const docker = opts.docker();
      const context = await prepare(req, reference, docker);

      const abort = new AbortController();
      const onClientGone = () => abort.abort(req.signal.reason);
      req.signal.addEventListener("abort", onClientGone, { once: true });
      const build = (onEvent?: (e: TImageBuildEvent) => void) =>
        buildImage(docker, { contextFile: context.file, reference, limits, uploadedAt: now(), signal: abort.signal, onEvent });
      const finish = async () => {
        req.signal.removeEventListener("abort", onClientGone);
        await context.remove();
        release();
      };

      if (!wantsNdjson(req)) {
        try {
          const outcome = await build();
          return outcome.ok ? Response.json(outcome.image, { status: 201 }) : buildFailed(outcome);
        } finally {
          await finish();
        }
      }
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          const send = (event: TImageBuildEvent) => {
            if (!abort.signal.aborted) controller.enqueue(encoder.encode(`${JSON.stringify(event)}\n`));
          };
          try {
            const outcome = await build(send);
            send(
              outcome.ok ? { type: "result", ...outcome.image } : { type: "error", message: outcome.message, lastLines: outcome.lastLines },
            );
          } catch (err) {
            if (!abort.signal.aborted) {
              log(`REST POST /images (${reference}):`, err);
              send({ type: "error", message: err instanceof AppError ? err.message : INTERNAL_MESSAGE, lastLines: [] });
            }
          } finally {
            await finish();
            if (!abort.signal.aborted) controller.close();
          }
        },
        cancel(reason) {
          abort.abort(reason);
        },
      });
      return new Response(body, { status: 200, headers: { "content-type": NDJSON, "cache-control": "no-store" } });
    } catch (err) {
      release();
      // Whatever of the upload is still unread is not wanted (a body being read is locked: nothing to do).
      await req.body?.cancel().catch(() => {});
      if (err instanceof Refusal) return restError(err.status, err.body, err.headers);
      if (err instanceof AppError && err.kind === "unavailable") return restError(503, { error: "unavailable", message: err.message });
      if (req.signal.aborted) return restError(499, { error: "client_closed", message: "The client went away; the build was cancelled" });
      log("REST POST /images:", err);
      return restError(500, { error: "internal", message: INTERNAL_MESSAGE });
    }
  };
}
