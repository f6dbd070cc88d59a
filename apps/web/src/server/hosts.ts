import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The Host names the dashboard and its API answer to: loopback always, and the names the operator
 * configures (SCALELAB_ALLOWED_HOSTS). Anything else is refused before Next.js sees the request:
 * a page on another name that resolves to 127.0.0.1 (DNS rebinding) could otherwise create runs
 * and read them from the user's browser.
 */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "::1"] as const;

/** The host name of a Host header, lower case, without its port; IPv6 without brackets. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end > 0 ? h.slice(1, end) : undefined;
  }
  return h.replace(/:\d*$/, "").replace(/\.$/, "") || undefined;
}

export function isAllowedHost(header: string | undefined, allowed: readonly string[]): boolean {
  const name = hostName(header);
  return name !== undefined && (LOOPBACK_HOSTS.includes(name as (typeof LOOPBACK_HOSTS)[number]) || allowed.includes(name));
}

function refuse(req: IncomingMessage, res: ServerResponse, allowed: readonly string[]): void {
  const names = [...LOOPBACK_HOSTS, ...allowed].join(", ");
  const body = JSON.stringify({
    error: "forbidden_host",
    message: `Host ${JSON.stringify(req.headers.host ?? "")} is not a name this lab serves (${names}); add it to SCALELAB_ALLOWED_HOSTS to serve it`,
  });
  res.writeHead(403, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

type Emitter = { emit(event: string | symbol, ...args: unknown[]): boolean };
const installed = new WeakSet<object>();

/** Wraps `target.emit` (an http.Server, or its prototype for every server of the process) once. */
export function refuseForeignHosts(target: Emitter, allowed: readonly string[]): void {
  if (installed.has(target)) return;
  installed.add(target);
  const emit = target.emit;
  target.emit = function (this: unknown, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse];
      if (!isAllowedHost(req.headers.host, allowed)) {
        refuse(req, res, allowed);
        return true;
      }
    }
    return emit.apply(this, [event, ...args]);
  };
}
