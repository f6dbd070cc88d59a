import { LineSplitter, parseJsonLine, ZImageBuildEvent, type TImageBuildEvent } from "@scalelab/scenarios/images";
import type { FieldIssue } from "./issues";

export type UploadOutcome =
  { ok: true; reference: string; id: string } | { ok: false; message: string; lastLines: string[]; issues: FieldIssue[] };

/** The media type of a build context by its file name: gzip for .tar.gz/.tgz, tar otherwise (the server reads the bytes anyway). */
export function contextType(fileName: string): string {
  return /\.(tgz|gz)$/i.test(fileName) ? "application/gzip" : "application/x-tar";
}

/** A tag to start from, from the archive's name: `my-app.tar.gz` → `my-app:latest`; "" when the name makes none. */
export function tagFromFileName(fileName: string): string {
  const stem = fileName
    .replace(/\.(tar\.gz|tgz|tar)$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return stem ? `${stem}:latest` : "";
}

type ErrorBody = { error?: unknown; message?: unknown; issues?: unknown; lastLines?: unknown };

async function refusal(res: Response): Promise<UploadOutcome> {
  const body = ((await res.json().catch(() => null)) ?? {}) as ErrorBody;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const issues = Array.isArray(body.issues) ? (body.issues as FieldIssue[]) : [];
  const message = typeof body.message === "string" ? body.message : `The upload failed (HTTP ${res.status})`;
  return {
    ok: false,
    message: issues.length ? issues.map((i) => i.message).join("; ") : message,
    lastLines: strings(body.lastLines),
    issues,
  };
}

/**
 * Uploads a build context to `POST /api/v1/images?tag=` asking for NDJSON, hands each step and
 * output line to `onEvent`, and resolves with the image's reference or the refusal or build
 * failure (message, last lines, field issues). `signal` abandons the upload, which cancels the build.
 */
export async function uploadContext(opts: {
  file: Blob & { name: string };
  tag: string;
  onEvent?: (event: TImageBuildEvent) => void;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  base?: string;
}): Promise<UploadOutcome> {
  const res = await (opts.fetch ?? fetch)(`${opts.base ?? ""}/api/v1/images?tag=${encodeURIComponent(opts.tag)}`, {
    method: "POST",
    body: opts.file,
    headers: { "content-type": contextType(opts.file.name), accept: "application/x-ndjson" },
    signal: opts.signal,
  });
  if (res.status !== 200 || !res.body) return refusal(res);

  const lines = new LineSplitter();
  const decoder = new TextDecoder();
  let outcome: UploadOutcome | undefined;
  const take = (line: string) => {
    const event = ZImageBuildEvent.safeParse(parseJsonLine(line));
    if (!event.success) return;
    if (event.data.type === "result") outcome = { ok: true, reference: event.data.reference, id: event.data.id };
    else if (event.data.type === "error") outcome = { ok: false, message: event.data.message, lastLines: event.data.lastLines, issues: [] };
    else opts.onEvent?.(event.data);
  };
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    lines.push(decoder.decode(value, { stream: true })).forEach(take);
  }
  lines.end().forEach(take);
  return outcome ?? { ok: false, message: "The build's answer ended without a result", lastLines: [], issues: [] };
}
