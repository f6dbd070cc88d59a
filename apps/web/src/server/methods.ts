import type { IncomingMessage } from "node:http";
import { ORIGINAL_METHOD_HEADER } from "./http";

/**
 * Requests with a method Next.js cannot route (TRACE, QUERY, PROPFIND, …), answered like any
 * other method a path does not have: a JSON 405 with Allow.
 *
 * A route handler (and a middleware) gets a fetch `Request`, and Next.js builds it only for the
 * methods route handlers can export (GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH). For TRACE it
 * cannot build one at all (fetch forbids the method: "'TRACE' HTTP method is unsupported"), so a
 * TRACE to /api/v1 or /api/trpc was a 500 HTML page; any other method Node.js accepts was an
 * empty 400. An exported TRACE handler is never reached. This is installed on the HTTP server
 * (src/instrumentation.ts, at start) and hands such a request on as a PATCH with its method in
 * ORIGINAL_METHOD_HEADER: both API handlers read the method through `requestMethod` and refuse
 * it with their usual 405; pages answer a PATCH with Next.js's own 405. The header is removed
 * from every other request, so a client cannot set it.
 */

/** What Next.js hands to a route handler. */
const ROUTABLE = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"]);

/** A method every API route exports and no page takes. */
const STAND_IN = "PATCH";

type Emitter = { emit(event: string | symbol, ...args: unknown[]): boolean };
const installed = new WeakSet<object>();

/** Wraps `target.emit` (an http.Server, or its prototype for every server of the process) once. */
export function handOnUnroutableMethods(target: Emitter): void {
  if (installed.has(target)) return;
  installed.add(target);
  const emit = target.emit;
  target.emit = function (this: unknown, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const req = args[0] as IncomingMessage;
      delete req.headers[ORIGINAL_METHOD_HEADER];
      if (req.method && !ROUTABLE.has(req.method)) {
        req.headers[ORIGINAL_METHOD_HEADER] = req.method;
        req.method = STAND_IN;
      }
    }
    return emit.apply(this, [event, ...args]);
  };
}
