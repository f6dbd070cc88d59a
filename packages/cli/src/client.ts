import createClient, { type Client } from "openapi-fetch";
import { z } from "zod";
import { DEFAULT_URL, type CliEnv } from "./env";
import { ApiError, CliError, EXIT, UsageError } from "./errors";
import type { paths } from "./generated/api";

export type Api = Client<paths>;
/** The lab the CLI talks to: its address (for messages) and the typed client of its REST API. */
export type Lab = { url: string; api: Api };

/** The lab's address: `--url`, else SCALELAB_URL, else the dashboard's default. */
export function labUrl(flag: string | undefined, env: Pick<CliEnv, "url">): string {
  const raw = flag ?? env.url ?? DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag !== undefined ? "--url" : "SCALELAB_URL"} ${raw} is not a URL (e.g. ${DEFAULT_URL})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${flag !== undefined ? "--url" : "SCALELAB_URL"} ${raw} must be an http:// or https:// URL`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The headers every request carries: the API token when SCALELAB_TOKEN gives one. */
export function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

export function connect(url: string, token: string | undefined): Lab {
  return { url, api: createClient<paths>({ baseUrl: `${url}/api/v1`, headers: authHeaders(token) }) };
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "no such host (DNS lookup failed)",
  ETIMEDOUT: "timed out",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_CONNECT_TIMEOUT: "timed out",
  UND_ERR_SOCKET: "connection closed",
  CERT_HAS_EXPIRED: "its TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
};

/** Why a request did not reach the lab, in words: fetch says "fetch failed" and puts the reason in `cause`. */
export function connectionReason(err: unknown): string {
  let cause: unknown = err;
  for (let i = 0; i < 4 && cause instanceof Error; i++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && REASONS[code]) return REASONS[code];
    if (cause.cause === undefined) break;
    cause = cause.cause;
  }
  const errors = (cause as { errors?: unknown[] } | undefined)?.errors;
  if (Array.isArray(errors) && errors.length > 0) return connectionReason(errors[0]);
  return cause instanceof Error ? cause.message : String(cause);
}

export function connectionError(url: string, err: unknown): CliError {
  return new CliError(`cannot reach the lab at ${url} (set SCALELAB_URL): ${connectionReason(err)}`, EXIT.usage);
}

const ZErrorBody = z.object({
  error: z.string(),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  lastLines: z.array(z.string()).optional(),
});

/** An error answer as a CliError: the lab's own sentences, each invalid field's on its own line. */
export function apiError(status: number, body: unknown): ApiError {
  const parsed = ZErrorBody.safeParse(body);
  if (!parsed.success)
    return new ApiError(
      `the lab answered ${status}${typeof body === "string" && body ? `: ${body.slice(0, 300)}` : ""}`,
      status,
      "unknown",
    );
  const { error, message, issues = [], lastLines = [] } = parsed.data;
  if (status === 401) {
    return new ApiError(
      `the lab needs a valid API token: ${message}\n` +
        'give it in SCALELAB_TOKEN, or as "token" in $XDG_CONFIG_HOME/scalelab/config.json (else ~/.config/scalelab/config.json), ' +
        'which sends it only to the lab of its "url"',
      status,
      error,
    );
  }
  const lines =
    issues.length > 0
      ? [
          `the lab refused it (${error}):`,
          ...issues.map((i) => `  ${i.path && !i.message.includes(i.path) ? `${i.path}: ` : ""}${i.message}`),
        ]
      : [`the lab answered ${status} (${error}): ${message}`];
  if (lastLines.length > 0) lines.push("its last lines:", ...lastLines.map((l) => `  ${l}`));
  return new ApiError(lines.join("\n"), status, error, issues);
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** One request: its data, or a CliError (exit 3) for a lab that is not there or that refused it. */
export async function call<T>(lab: Lab, request: () => Promise<Answer<T>>): Promise<NonNullable<T>> {
  let answer: Answer<T>;
  try {
    answer = await request();
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw connectionError(lab.url, err);
  }
  if (!answer.response.ok || answer.error !== undefined) throw apiError(answer.response.status, answer.error);
  return answer.data as NonNullable<T>;
}

export const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.status === 404;
