import { defineConfig } from "vitest/config";

export default defineConfig({
  // Runs of 5 s each, after the worker has provisioned their containers.
  test: { include: ["src/**/*.integration.test.ts"], testTimeout: 180_000, hookTimeout: 60_000, fileParallelism: false },
});
