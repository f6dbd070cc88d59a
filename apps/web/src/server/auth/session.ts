import { isTokenText } from "@scalelab/scenarios/contract";
import { isCrossSiteBrowserRequest, isJsonContentType, readBody, requestMethod } from "../http";
import { restError } from "../rest/errors";
import { HOW_TO_GET_A_TOKEN, SESSION_COOKIE, type VerifyToken } from "./auth";

/** How long a dashboard session lasts unless its token is revoked first (then it ends at once). */
export const SESSION_DAYS = 30;

/** Whether the lab was reached over https: directly, or through a proxy that says so. */
function overHttps(req: Request): boolean {
  const proto = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  return proto === "https" || new URL(req.url).protocol === "https:";
}

/**
 * The Set-Cookie of the session: the token (HttpOnly, SameSite=Lax, Secure over https), or its
 * removal. Lax, not Strict: a link to the lab from CI logs or a chat is a cross-site navigation,
 * which Strict would send to /login. Lax still keeps the cookie off another site's POST, fetch and
 * frames, and a request that changes something is refused anyway unless it is the lab's own
 * same-origin JSON (server/auth/auth.ts, server/http.ts).
 */
export function sessionCookie(token: string | null, secure: boolean): string {
  const attrs = ["Path=/", "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])];
  return token === null
    ? [`${SESSION_COOKIE}=`, "Max-Age=0", ...attrs].join("; ")
    : [`${SESSION_COOKIE}=${token}`, `Max-Age=${SESSION_DAYS * 86_400}`, ...attrs].join("; ");
}

/**
 * /api/session: POST `{ "token": "slb_…" }` logs the browser in (the session cookie holds the
 * token, server/auth/auth.ts says why), DELETE logs it out. Open without a token, it is the way
 * in; only the lab's own pages may call it (a cross-site login would put the visitor in someone
 * else's session), and only with JSON.
 */
export function createSessionHandler(verify: VerifyToken): (req: Request) => Promise<Response> {
  return async (req) => {
    const method = requestMethod(req);
    if (isCrossSiteBrowserRequest(req)) {
      return restError(403, { error: "forbidden", message: "Log in from the lab's own /login page" });
    }
    const secure = overHttps(req);
    if (method === "DELETE") {
      return new Response(null, { status: 204, headers: { "set-cookie": sessionCookie(null, secure) } });
    }
    if (method !== "POST") {
      return restError(
        405,
        { error: "method_not_allowed", message: `${method} is not allowed here; allowed: DELETE, POST` },
        { allow: "DELETE, POST" },
      );
    }
    if (!isJsonContentType(req.headers.get("content-type"))) {
      return restError(415, { error: "unsupported_media_type", message: 'Send the token as application/json: {"token": "slb_…"}' });
    }
    let token: unknown;
    try {
      token = (JSON.parse(new TextDecoder().decode(await readBody(req, 4096))) as { token?: unknown } | null)?.token;
    } catch {
      return restError(400, {
        error: "invalid_input",
        message: 'The body must be JSON: {"token": "slb_…"}',
        issues: [{ path: "token", message: "token is required" }],
      });
    }
    if (typeof token !== "string" || !isTokenText(token.trim())) {
      return restError(400, {
        error: "invalid_input",
        message: "Input validation failed",
        issues: [{ path: "token", message: "token must be an API token: slb_ and 43 characters" }],
      });
    }
    const info = await verify(token.trim());
    if (!info)
      return restError(401, { error: "unauthorized", message: `The token is not valid or has been revoked; ${HOW_TO_GET_A_TOKEN}` });
    return Response.json({ name: info.name, prefix: info.prefix }, { headers: { "set-cookie": sessionCookie(token.trim(), secure) } });
  };
}
