import type { IncomingMessage, ServerResponse } from "node:http";
import { cookieValue, SESSION_COOKIE, tokenNeeded, type AuthPolicy, type VerifyToken } from "./auth";
import { isTokenText } from "@scalelab/scenarios/contract";
import { safeNext } from "~/lib/login";

/**
 * The dashboard's pages when the lab needs a token: a request without a valid session cookie is
 * sent to /login (303, with the page it wanted as `next`), before Next.js renders anything, so that
 * no page, server-rendered data or RSC payload is served to a stranger. Installed on the HTTP
 * server like server/hosts.ts (src/instrumentation.ts): Next.js's middleware runs on the edge
 * runtime and cannot reach the database. The API's routes check requests themselves (they answer
 * 401 in their own error shapes), and what the login page needs is open.
 */

/** Paths served to anyone: the login page and the API's routes (which check for themselves), Next's static files, the icon. */
export function isOpenPath(pathname: string): boolean {
  return (
    pathname === "/login" ||
    pathname.startsWith("/api/") ||
    pathname.startsWith("/_next/static/") ||
    pathname === "/icon.svg" ||
    pathname === "/favicon.ico"
  );
}

/** Where a refused page request is sent: /login, with the page (a path of this lab, never another site) to return to. */
export function loginLocation(url: string): string {
  const path = safeNext(url);
  return path === "/" ? "/login" : `/login?next=${encodeURIComponent(path)}`;
}

type Emitter = { emit(event: string | symbol, ...args: unknown[]): boolean };
const installed = new WeakSet<object>();

export type PageGuard = { policy: () => AuthPolicy; verify: VerifyToken; log?: (message: string, error: unknown) => void };

/** Wraps `target.emit` (an http.Server, or its prototype for every server of the process) once. */
export function guardPages(target: Emitter, guard: PageGuard): void {
  if (installed.has(target)) return;
  installed.add(target);
  const emit = target.emit;
  const log = guard.log ?? ((m: string, e: unknown) => console.error(m, e));
  target.emit = function (this: unknown, event: string | symbol, ...args: unknown[]) {
    if (event !== "request") return emit.apply(this, [event, ...args]);
    const [req, res] = args as [IncomingMessage, ServerResponse];
    const url = req.url ?? "/";
    const pathname = url.split("?", 1)[0]!;
    if (isOpenPath(pathname) || !tokenNeeded(guard.policy(), req.headers.host, req.headers["x-forwarded-host"])) {
      return emit.apply(this, [event, ...args]);
    }
    const session = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const check = session && isTokenText(session) ? guard.verify(session) : Promise.resolve(null);
    check.then(
      (token) => {
        if (token) {
          emit.apply(this, [event, ...args]);
          return;
        }
        res.writeHead(303, { location: loginLocation(url), "cache-control": "no-store", "content-length": 0 });
        res.end();
      },
      (err: unknown) => {
        log("page guard:", err);
        res.writeHead(503, { "content-type": "text/plain; charset=utf-8", "retry-after": "5" });
        res.end("The lab cannot check sessions right now (its database is unreachable); try again shortly.");
      },
    );
    return true;
  };
}
