import { describe, expect, it } from "vitest";
import { ByteBudget, formatBytes, isGzip, isRootDockerfile, MAX_CONTEXT_BYTES } from "./context";

describe("isGzip", () => {
  it("looks at the magic bytes only", () => {
    expect(isGzip(new Uint8Array([0x1f, 0x8b, 8]))).toBe(true);
    expect(isGzip(new Uint8Array([0x1f]))).toBe(false);
    expect(isGzip(new TextEncoder().encode("Dockerfile\0"))).toBe(false);
  });
});

describe("isRootDockerfile", () => {
  it("takes Dockerfile at the root, as tar -C dir . or tar Dockerfile writes it", () => {
    expect(isRootDockerfile({ name: "Dockerfile", type: "file" })).toBe(true);
    expect(isRootDockerfile({ name: "./Dockerfile", type: "file" })).toBe(true);
    expect(isRootDockerfile({ name: "Dockerfile" })).toBe(true);
  });

  it("refuses one in a subdirectory, another case, or not a regular file", () => {
    expect(isRootDockerfile({ name: "app/Dockerfile", type: "file" })).toBe(false);
    expect(isRootDockerfile({ name: "dockerfile", type: "file" })).toBe(false);
    expect(isRootDockerfile({ name: "Dockerfile", type: "directory" })).toBe(false);
    expect(isRootDockerfile({ name: "Dockerfile", type: "symlink" })).toBe(false);
  });
});

describe("ByteBudget", () => {
  it("says false as soon as the total passes the limit, not at it", () => {
    const budget = new ByteBudget(10);
    expect(budget.add(4)).toBe(true);
    expect(budget.add(6)).toBe(true);
    expect(budget.add(1)).toBe(false);
    expect(budget.total).toBe(11);
  });
});

describe("formatBytes", () => {
  it("names the limit for people", () => {
    expect(formatBytes(MAX_CONTEXT_BYTES)).toBe("200 MiB");
    expect(formatBytes(512)).toBe("512 bytes");
    expect(formatBytes(1536)).toBe("1.5 KiB");
  });
});
