import { defineConfig } from "vitest/config";

// `vitest run` runs the unit tests; `vitest run integration` (test:integration) the Docker ones;
// `vitest run cluster` the ones against the test Swarm cluster (scripts/test.sh, with it up).
const integration = process.argv.some((a) => a.includes("integration") || a.includes("cluster"));

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    exclude: integration ? [] : ["src/**/*.integration.test.ts", "src/**/*.cluster.test.ts"],
    testTimeout: integration ? 5 * 60_000 : 5_000,
    hookTimeout: integration ? 5 * 60_000 : 10_000,
  },
});
