// `prisma generate` with the wasm query compiler. The Prisma CLI insists on resolving the
// native schema-engine first (downloading it from a host this lab cannot reach) even though
// generate never runs it; pointing it at a placeholder keeps generate offline.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const placeholder = join(root, "node_modules", ".cache", "schema-engine-unused");
  if (!existsSync(placeholder)) {
    mkdirSync(dirname(placeholder), { recursive: true });
    writeFileSync(
      placeholder,
      "#!/bin/sh\necho 'scalelab: the native schema engine is not used; migrations run through src/migrate.ts' >&2\nexit 1\n",
    );
    chmodSync(placeholder, 0o755);
  }
  env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
}
const r = spawnSync("pnpm", ["exec", "prisma", "generate"], { cwd: root, env, stdio: "inherit" });
process.exit(r.status ?? 1);
