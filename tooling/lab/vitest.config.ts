import { defineConfig } from "vitest/config";

// `vitest run` runs the unit tests; `vitest run integration` (test:integration) the Docker ones.
const integration = process.argv.some((a) => a.includes("integration"));

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    exclude: integration ? [] : ["src/**/*.integration.test.ts"],
    testTimeout: integration ? 5 * 60_000 : 5_000,
    hookTimeout: integration ? 5 * 60_000 : 10_000,
  },
});
