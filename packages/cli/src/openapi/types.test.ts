import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { REFRESH_COMMAND, TYPES_FILE, typesOf, webOpenApiDocument } from "./types-source";

describe("the CLI's API types", () => {
  it("are those of the web's current OpenAPI document", async () => {
    const [committed, fresh] = await Promise.all([readFile(TYPES_FILE, "utf8"), webOpenApiDocument().then(typesOf)]);
    if (committed !== fresh) {
      expect.fail(
        `src/generated/api.ts is stale: the API changed since it was generated. Refresh it with ${REFRESH_COMMAND} and commit it.`,
      );
    }
  });
});
