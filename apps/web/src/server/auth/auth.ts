import type { ApiTokenInfo } from "@scalelab/db/tokens";
import { bearerOf, isTokenText, requestNeedsToken, tokenRequired } from "@scalelab/scenarios/contract";
import { getEnv, type Env } from "~/env";
import { hostName } from "../hosts";
import { isCrossSiteBrowserRequest } from "../http";

/**
 * Who is calling: API tokens, sent as `Authorization: Bearer slb_…` or held by the dashboard's
 * session cookie (set by /api/session when one pastes a token at /login). The cookie holds the
 * token itself, not a session id: revoking the token ends every session opened with it, and there
 * is no second secret (a sessions table) to keep, expire and revoke. It is HttpOnly, so no script
 * of the page can read it, and SameSite=Lax, so no other site's page sends it with a request that
 * changes something (a link from CI logs or a chat still arrives logged in).
 */

export const SESSION_COOKIE = "scalelab_session";

/**
 * `always`: every call needs a token, whatever its Host (off loopback, SCALELAB_AUTH=required, or
 * SCALELAB_ALLOWED_HOSTS naming another host: the web's environment). Else a request needs one when
 * it is addressed to a host that is not loopback (tokenNeeded).
 */
export type AuthPolicy = { always: boolean };

export function authPolicyOf(env: Pick<Env, "SCALELAB_LISTEN_HOST" | "SCALELAB_AUTH" | "SCALELAB_ALLOWED_HOSTS">): AuthPolicy {
  return { always: tokenRequired(env.SCALELAB_LISTEN_HOST, env.SCALELAB_AUTH, env.SCALELAB_ALLOWED_HOSTS) };
}

export const envAuthPolicy = (): AuthPolicy => authPolicyOf(getEnv());

/**
 * Whether a request with these Host and X-Forwarded-Host headers needs a token: a web bound to
 * 127.0.0.1 behind a reverse proxy sees the proxy's connections from loopback, but the names they
 * were addressed to are not loopback.
 */
export function tokenNeeded(
  policy: AuthPolicy,
  host: string | null | undefined,
  forwardedHost: string | string[] | null | undefined,
): boolean {
  const forwarded = [forwardedHost ?? []].flat().flatMap((h) => h.split(","));
  return requestNeedsToken(
    policy.always,
    hostName(host ?? undefined),
    forwarded.map((h) => hostName(h) ?? "").filter((h) => h !== ""),
  );
}

/** Looks a token up: its row when it exists and is not revoked (@scalelab/db/tokens verifyApiToken). */
export type VerifyToken = (token: string) => Promise<ApiTokenInfo | null>;

export type AuthResult =
  | { ok: true; token: ApiTokenInfo | null; via: "bearer" | "cookie" | null }
  | { ok: false; status: 401 | 403; error: "unauthorized" | "forbidden"; message: string };

export const HOW_TO_GET_A_TOKEN =
  "make one at /tokens or with `scalelab token create <name>` (on the lab's host: `pnpm --filter @scalelab/lab lab token create <name>`)";

const unauthorized = (message: string): AuthResult => ({ ok: false, status: 401, error: "unauthorized", message });

/** The value of one cookie in a Cookie header, or null. */
export function cookieValue(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

async function lookUp(verify: VerifyToken, token: string): Promise<ApiTokenInfo | null> {
  return isTokenText(token) ? verify(token) : null;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The request's caller, or why it is refused.
 *
 * - A bearer token is always checked, required or not: a malformed header, an unknown or a
 *   revoked token is a 401 (a caller that sends one wants it used, and must learn it is bad).
 * - Else the session cookie: valid, it authenticates; stale (its token revoked) it is a 401 when
 *   tokens are required and is ignored otherwise (the page gate clears it).
 * - A cookie-authenticated request that changes something must come from the lab's own pages:
 *   a browser's cross-site request (Sec-Fetch-Site, else Origin) is a 403. SameSite=Lax
 *   already keeps the cookie off such requests (but for a top-level GET); this is the second lock.
 * - Nothing sent: fine when the request needs no token (tokenNeeded: the lab on loopback,
 *   addressed as loopback), a 401 otherwise. A request without a Host header is judged by its URL's.
 */
export async function authenticate(
  req: { headers: Headers; method: string; url: string },
  policy: AuthPolicy,
  verify: VerifyToken,
): Promise<AuthResult> {
  const bearer = bearerOf(req.headers.get("authorization"));
  if (bearer.kind === "malformed") return unauthorized("The Authorization header must be `Bearer <token>` with an API token (slb_…)");
  if (bearer.kind === "bearer") {
    const token = await lookUp(verify, bearer.token);
    if (!token) return unauthorized(`The API token is not valid or has been revoked; ${HOW_TO_GET_A_TOKEN}`);
    return { ok: true, token, via: "bearer" };
  }
  const session = cookieValue(req.headers.get("cookie"), SESSION_COOKIE);
  const token = session ? await lookUp(verify, session) : null;
  if (token) {
    if (!SAFE_METHODS.has(req.method) && isCrossSiteBrowserRequest(req)) {
      return { ok: false, status: 403, error: "forbidden", message: "A request from another site cannot use the dashboard's session" };
    }
    return { ok: true, token, via: "cookie" };
  }
  const host = req.headers.get("host") ?? new URL(req.url).host;
  if (!tokenNeeded(policy, host, req.headers.get("x-forwarded-host"))) return { ok: true, token: null, via: null };
  return unauthorized(
    session
      ? "Your session's token has been revoked: log in again at /login"
      : `This lab needs an API token: send Authorization: Bearer <token>; ${HOW_TO_GET_A_TOKEN}`,
  );
}

/** What a 401 carries besides its body (RFC 6750 §3). */
export const WWW_AUTHENTICATE = { "www-authenticate": 'Bearer realm="scalelab"' } as const;
