import { openApiDocument } from "./openapi";

// pnpm --filter @scalelab/web openapi: the document /api/v1/openapi.json serves, without a server
// (the CLI's types are generated from it: packages/cli/src/openapi).
process.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
