import { describe, expect, it } from "vitest";
import { registryRef } from "./registry";

describe("registryRef", () => {
  it("puts a lab image's repository and content-hash tag under the registry", () => {
    expect(registryRef("10.0.0.2:5000", "scalelab/testbed:0123abcd4567")).toEqual({
      repo: "10.0.0.2:5000/scalelab/testbed",
      tag: "0123abcd4567",
      ref: "10.0.0.2:5000/scalelab/testbed:0123abcd4567",
    });
  });

  it("keeps a user's image's own registry host as part of the path; no tag is latest; a digest becomes a tag", () => {
    expect(registryRef("127.0.0.1:55050", "flask-orders").ref).toBe("127.0.0.1:55050/flask-orders:latest");
    expect(registryRef("127.0.0.1:55050", "ghcr.io/acme/api:1.2").ref).toBe("127.0.0.1:55050/ghcr.io/acme/api:1.2");
    expect(registryRef("127.0.0.1:55050", "localhost:5000/api:2").ref).toBe("127.0.0.1:55050/localhost:5000/api:2");
    expect(registryRef("r:5000", `api@sha256:${"a".repeat(64)}`).tag).toBe(`sha256-${"a".repeat(64)}`);
  });

  it("tags an image named by its id (a user's image as the plan pins it) with that id", () => {
    const id = "321edbb64ec1b8c99dcffe28fc74d2d8c1b8ee85af903d6826bff989612f329c";
    expect(registryRef("r:5000", `sha256:${id}`).ref).toBe(`r:5000/scalelab/by-id:sha256-${id}`);
  });

  it("refuses a reference that is no repository name", () => {
    expect(() => registryRef("r:5000", "Bad Name:1")).toThrow(/no repository name/);
    expect(() => registryRef("r:5000", ":1")).toThrow(/no repository name/);
  });
});
