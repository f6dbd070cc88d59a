import { getEnv, nextRuntime } from "./env";

/**
 * Runs once when the server starts: a missing or malformed variable stops it with a clear
 * message; then requests with a method Next.js cannot route (TRACE, QUERY, …) are handed on to the
 * API's handlers (server/methods.ts says why), and a request for a Host name the lab does not serve
 * is refused (server/hosts.ts); when the lab needs tokens, a page without a valid session is sent to
 * /login (server/auth/pages.ts).
 */
export async function register() {
  try {
    getEnv();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    // Next.js would otherwise keep serving, answering every request with a 500.
    process.exit(1);
  }
  if (nextRuntime() === "nodejs") {
    const [
      { Server },
      { handOnUnroutableMethods },
      { refuseForeignHosts },
      { guardPages },
      { envAuthPolicy },
      { verifyApiToken },
      { deps },
    ] = await Promise.all([
      import("node:http"),
      import("./server/methods"),
      import("./server/hosts"),
      import("./server/auth/pages"),
      import("./server/auth/auth"),
      import("@scalelab/db/tokens"),
      import("./server/runtime"),
    ]);
    handOnUnroutableMethods(Server.prototype);
    guardPages(Server.prototype, { policy: envAuthPolicy, verify: (token) => verifyApiToken(deps.db, token) });
    // Installed last, so it runs first: a foreign Host is refused before anything else.
    refuseForeignHosts(Server.prototype, getEnv().SCALELAB_ALLOWED_HOSTS);
  }
}
