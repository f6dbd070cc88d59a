import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { labDatabaseUrl } from "./tokens";

describe("labDatabaseUrl", () => {
  const state = mkdtempSync(join(tmpdir(), "lab-state-"));

  it("takes DATABASE_URL first, else the lab's env file, else says what to do", () => {
    expect(() => labDatabaseUrl(undefined, state)).toThrow(/start the lab \(scripts\/up\.sh\) or set DATABASE_URL/);
    writeFileSync(join(state, "env.scalelab"), "DATABASE_URL=postgresql://a@127.0.0.1:55432/scalelab\nREDIS_URL=redis://x\n");
    expect(labDatabaseUrl(undefined, state)).toBe("postgresql://a@127.0.0.1:55432/scalelab");
    expect(labDatabaseUrl("postgresql://given/db", state)).toBe("postgresql://given/db");
  });
});
