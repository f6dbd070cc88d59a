import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Integration tests build images on a cold machine and run real load for seconds.
    testTimeout: 180_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
