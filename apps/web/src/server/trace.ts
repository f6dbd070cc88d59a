import type { IncomingMessage } from "node:http";
import { ORIGINAL_METHOD_HEADER } from "./http";

/**
 * TRACE requests, answered like any other method a path does not have (a JSON 405 with Allow).
 *
 * Next.js cannot hand a TRACE request to a route handler or to a middleware: it builds a fetch
 * `Request` for both first, and fetch forbids TRACE (`new Request(url, {method: "TRACE"})`
 * throws "'TRACE' HTTP method is unsupported"), so every TRACE to /api/v1 or /api/trpc was a
 * 500 HTML page. An exported TRACE handler is never reached. This is installed on the HTTP
 * server (src/instrumentation.ts, at start) and hands a TRACE request on as a PATCH marked with
 * ORIGINAL_METHOD_HEADER: both route handlers read the method through `requestMethod` and refuse
 * TRACE with their usual 405; pages answer a PATCH with Next's own 405 as they did a TRACE. The
 * header is removed from every other request, so a client cannot set it.
 */

/** A method every API route exports and no page takes. */
const STAND_IN = "PATCH";

type Emitter = { emit(event: string | symbol, ...args: unknown[]): boolean };
const installed = new WeakSet<object>();

/** Wraps `target.emit` (an http.Server, or its prototype for every server of the process) once. */
export function handTraceOn(target: Emitter): void {
  if (installed.has(target)) return;
  installed.add(target);
  const emit = target.emit;
  target.emit = function (this: unknown, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const req = args[0] as IncomingMessage;
      delete req.headers[ORIGINAL_METHOD_HEADER];
      if (req.method === "TRACE") {
        req.method = STAND_IN;
        req.headers[ORIGINAL_METHOD_HEADER] = "TRACE";
      }
    }
    return emit.apply(this, [event, ...args]);
  };
}
