import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": fileURLToPath(new URL("./src", import.meta.url)) } },
  // Components render in tests too (react-dom/server); Next's tsconfig leaves JSX to its own compiler.
  esbuild: { jsx: "automatic" },
  test: { include: ["src/**/*.test.ts"] },
});
