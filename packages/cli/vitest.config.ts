import { defineConfig } from "vitest/config";

export default defineConfig({
  // The types' freshness test prints the web's OpenAPI document through tsx: a few seconds.
  test: { include: ["src/**/*.test.ts"], testTimeout: 60_000 },
});
