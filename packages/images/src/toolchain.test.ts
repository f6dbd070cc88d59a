import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { K6_VERSION, XK6_SRC_DIR } from "./toolchain";

describe("the lab's k6 module", () => {
  it("requires the k6 the lab names (K6_VERSION goes into run facts and the image's hash)", async () => {
    const mod = await readFile(path.join(XK6_SRC_DIR, "go.mod"), "utf8");
    expect(mod).toMatch(new RegExp(`^require go\\.k6\\.io/k6 ${K6_VERSION.replace(/\./g, "\\.")}$`, "m"));
  });
});
