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

/** The curated entry points of @scalelab/scenarios (its package.json "exports"). */
const SCENARIOS_ENTRIES = ["contract", "messages", "components", "plan", "loadgen", "analysis", "experiments", "images"];

/** @param {{ root: string }} opts */
export function scalelab({ root }) {
  return tseslint.config(
    {
      ignores: [
        "**/node_modules/**",
        "**/next-env.d.ts",
        "**/.next/**",
        "**/.next-*/**",
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
        "import-x/extensions": importX.flatConfigs.typescript.settings["import-x/extensions"],
        "import-x/parsers": importX.flatConfigs.typescript.settings["import-x/parsers"],
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
      files: ["**/src/env.ts", "**/e2e/env.ts", "**/*.config.{ts,mts}"],
      rules: { "no-restricted-properties": "off" },
    },
    {
      // No import cycle. import-x's no-cycle skips `import type`, so these packages write type imports as
      // plain imports (erased by the compilers all the same) and type-only cycles are caught too.
      files: ["packages/scenarios/src/**/*.ts", "apps/worker/src/**/*.ts"],
      rules: {
        "import-x/no-cycle": ["error", { ignoreExternal: true }],
        "@typescript-eslint/consistent-type-imports": ["error", { prefer: "no-type-imports" }],
      },
    },
    {
      // The apps see @scalelab/scenarios only through its entry points (package.json "exports").
      files: ["apps/**/*.{ts,tsx}", "packages/db/**/*.ts", "packages/images/**/*.ts", "packages/cli/**/*.ts", "tooling/**/*.ts"],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: [
              {
                regex: `^@scalelab/scenarios(/(?!(${SCENARIOS_ENTRIES.join("|")})$).*)?$`,
                message: `Import @scalelab/scenarios through an entry point: ${SCENARIOS_ENTRIES.map((e) => `@scalelab/scenarios/${e}`).join(", ")}.`,
              },
              { group: ["**/packages/scenarios/src/**"], message: "Import @scalelab/scenarios through an entry point, not by path." },
            ],
          },
        ],
      },
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
