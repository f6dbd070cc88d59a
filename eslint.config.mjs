// Architectural rules only (STYLE.md 2 and 4): they keep the layering and the single place that
// reads the environment honest. Formatting and style are left to review.
import tseslint from "typescript-eslint";

const IO_MODULES = [
  "@scalelab/db", "@scalelab/images", "@prisma/*", "pg", "dockerode", "bullmq", "ioredis",
  "next", "next/*", "react", "react-dom", "node:fs", "node:fs/promises", "fs", "node:child_process",
  "child_process", "node:net", "node:http", "node:https", "node:os",
];

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/.next/**", "**/generated/**", "**/dist/**", ".scalelab/**"] },
  {
    files: ["**/*.{ts,tsx,mts}"],
    languageOptions: { parser: tseslint.parser },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read the environment in the app's env.ts, parsed with Zod." },
      ],
    },
  },
  {
    // Where the environment is read (or handed on to a child process) and tool configs.
    files: ["**/src/env.ts", "**/*.config.{ts,mts}"],
    rules: { "no-restricted-properties": "off" },
  },
  {
    files: ["packages/scenarios/src/**/*.ts"],
    ignores: ["packages/scenarios/src/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: IO_MODULES, message: "packages/scenarios is pure: no I/O, no Prisma, Docker, queues or frameworks." }] },
      ],
    },
  },
);
