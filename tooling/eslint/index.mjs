// The shared lint configuration: typescript-eslint's recommended rules, Prettier's formatting
// (eslint-config-prettier turns off what the formatter owns), and the architecture rules (STYLE.md
// 2, 4, 18, 19): the environment is read in one place, packages/scenarios stays pure, no import
// cycles, and the apps import @scalelab/scenarios only through its entry points.
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";

const IO_MODULES = [
  "@scalelab/db",
  "@scalelab/images",
  "@prisma/*",
  "pg",
  "dockerode",
  "bullmq",
  "ioredis",
  "next",
  "next/*",
  "react",
  "react-dom",
  "node:fs",
  "node:fs/promises",
  "fs",
  "node:child_process",
  "child_process",
  "node:net",
  "node:http",
  "node:https",
  "node:os",
];

/** @param {{ root: string }} opts */
export function scalelab({ root }) {
  return tseslint.config(
    {
      // next-env.d.ts: written by `next build`, not to be edited.
      ignores: [
        "**/node_modules/**",
        "**/.next/**",
        "**/.next-*/**",
        "**/next-env.d.ts",
        "**/generated/**",
        "**/dist/**",
        ".scalelab/**",
        "**/*.{js,mjs,cjs}",
      ],
    },
    ...tseslint.configs.recommended,
    prettier,
    {
      files: ["**/*.{ts,tsx,mts}"],
      plugins: { "import-x": importX },
      settings: {
        "import-x/resolver-next": [
          createTypeScriptImportResolver({
            noWarnOnMultipleProjects: true,
            project: [`${root}/apps/*/tsconfig.json`, `${root}/packages/*/tsconfig.json`, `${root}/tooling/*/tsconfig.json`],
          }),
        ],
      },
      rules: {
        "no-restricted-properties": [
          "error",
          { object: "process", property: "env", message: "Read the environment in the app's env.ts, parsed with Zod." },
        ],
        "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
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
}
