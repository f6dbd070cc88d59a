import { describe, expect, it } from "vitest";
import { isLabName, nameOf, parseImageReference, REFERENCE_PATTERN } from "./reference";

const ok = (raw: string) => {
  const r = parseImageReference(raw);
  if (!r.ok) throw new Error(r.message);
  return r.value.reference;
};
const refusal = (raw: string) => {
  const r = parseImageReference(raw);
  if (r.ok) throw new Error(`${raw} was accepted`);
  return r.message;
};

describe("parseImageReference", () => {
  it("accepts name[:tag] and completes the default tag", () => {
    expect(ok("myapp:1.2")).toBe("myapp:1.2");
    expect(ok("myapp")).toBe("myapp:latest");
    expect(ok("team/my-app_v2:V1.0-rc_1")).toBe("team/my-app_v2:V1.0-rc_1");
    expect(ok("a.b/c__d/e--f:_x")).toBe("a.b/c__d/e--f:_x");
    expect(ok(`app:${"t".repeat(128)}`)).toContain("app:");
  });

  it("refuses what Docker refuses, naming the field and the rule", () => {
    for (const bad of [
      "",
      "MyApp:1",
      "my app",
      "-app",
      "app-",
      "a..b",
      "a/",
      "/a",
      "a//b",
      "app:",
      "app:.1",
      "app:-1",
      "app:1:2",
      `app:${"t".repeat(129)}`,
      "localhost:5000/app",
      "app@sha256:abc",
      `${"a".repeat(256)}:1`,
    ]) {
      const message = refusal(bad);
      expect(message, bad).toMatch(/^tag /);
      expect(message, bad).toContain("name[:tag]");
    }
    expect(parseImageReference("App", "image")).toMatchObject({ ok: false, message: expect.stringMatching(/^image has an invalid name/) });
  });

  it("refuses the lab's own namespace, however Docker Hub spells it", () => {
    for (const lab of ["scalelab/base:1279caf55d59", "scalelab/testbed", "docker.io/scalelab/nginx:x", "index.docker.io/scalelab/k6"]) {
      expect(refusal(lab), lab).toBe("tag must not be in the lab's own namespace scalelab/ (where the lab's images live)");
    }
    expect(ok("scalelab:1")).toBe("scalelab:1");
    expect(ok("me/scalelab")).toBe("me/scalelab:latest");
    expect(parseImageReference("scalelab/base:1", "image", { allowLab: true }).ok).toBe(true);
  });
});

describe("REFERENCE_PATTERN", () => {
  it("agrees with the check on syntax", () => {
    const pattern = new RegExp(REFERENCE_PATTERN);
    for (const raw of ["myapp", "myapp:1.2", "team/my-app_v2:V1.0-rc_1", "a.b/c__d/e--f:_x"]) expect(pattern.test(raw), raw).toBe(true);
    for (const raw of ["MyApp", "app:", "app:.1", "a//b", "localhost:5000/app", "app@sha256:abc"])
      expect(pattern.test(raw), raw).toBe(false);
  });
});

describe("names", () => {
  it("takes the repository of a reference, a registry port included", () => {
    expect(nameOf("a/b:1")).toBe("a/b");
    expect(nameOf("a/b")).toBe("a/b");
    expect(nameOf("localhost:5000/b:2")).toBe("localhost:5000/b");
  });

  it("knows the lab's namespace", () => {
    expect(isLabName("scalelab/base")).toBe(true);
    expect(isLabName("docker.io/scalelab/base")).toBe(true);
    expect(isLabName("scalelab")).toBe(false);
    expect(isLabName("docker.io/library/scalelab")).toBe(false);
    expect(isLabName("ghcr.io/scalelab/x")).toBe(false);
  });
});
