import type { NextConfig } from "next";
import { buildSkipsTypecheck, nextDistDir } from "./src/env";

const config: NextConfig = {
  reactStrictMode: true,
  // `.next`, or the test suite's `.next-e2e` (src/env.ts).
  distDir: nextDistDir(),
  // Off only in the app image's build (src/env.ts).
  typescript: { ignoreBuildErrors: buildSkipsTypecheck() },
  // Internal packages are TypeScript source (docs/ARCHITECTURE.md).
  transpilePackages: ["@scalelab/scenarios", "@scalelab/db"],
  // Required from node_modules at runtime instead of being bundled. trpc-to-openapi must be:
  // webpack folds its `"coerce" in z` feature test to false, which breaks its query-string
  // coercion and its document generator; zod and @trpc/server then stay single instances.
  // dockerode's ssh2 has an optional native module webpack cannot bundle.
  serverExternalPackages: [
    "pg",
    "@prisma/adapter-pg",
    "@prisma/client",
    "bullmq",
    "ioredis",
    "trpc-to-openapi",
    "@trpc/server",
    "zod",
    "dockerode",
  ],
};

export default config;
