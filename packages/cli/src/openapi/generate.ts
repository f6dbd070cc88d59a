import { writeFile } from "node:fs/promises";
import { TYPES_FILE, typesOf, webOpenApiDocument } from "./types-source";

// pnpm --filter @scalelab/cli generate: rewrites src/generated/api.ts from the web's document.
await writeFile(TYPES_FILE, await typesOf(await webOpenApiDocument()));
console.log(`wrote ${TYPES_FILE}`);
