import { getEnv } from "./env";

/** Runs once when the server starts: a missing or malformed variable stops it with a clear message. */
export function register() {
  try {
    getEnv();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    // Next.js would otherwise keep serving, answering every request with a 500.
    process.exit(1);
  }
}
