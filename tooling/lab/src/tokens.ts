import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The lab's database for `lab token create`: DATABASE_URL when set, else the env file that
 * scripts/up.sh's control plane wrote for the lab's own database (`<state>/env.scalelab`).
 * The first token of a lab reachable from other machines comes from here: no API can make it
 * without a token.
 */
export function labDatabaseUrl(given: string | undefined, stateDir: string): string {
  if (given) return given;
  const file = join(stateDir, "env.scalelab");
  if (existsSync(file)) {
    const line = readFileSync(file, "utf8")
      .split("\n")
      .find((l) => l.startsWith("DATABASE_URL="));
    if (line) return line.slice("DATABASE_URL=".length).trim();
  }
  throw new Error(`DATABASE_URL is not set and ${file} does not exist: start the lab (scripts/up.sh) or set DATABASE_URL`);
}
