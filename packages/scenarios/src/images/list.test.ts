import { describe, expect, it } from "vitest";
import { labImageIds, runnableImages, EngineImage } from "./list";

const at = (iso: string) => Date.parse(iso) / 1000;
const IMAGES: EngineImage[] = [
  {
    Id: "sha256:base",
    RepoTags: ["scalelab/base:1279caf55d59", "debian:bookworm-slim"],
    Size: 81_500_000,
    Created: at("2026-01-01T00:00:00Z"),
  },
  { Id: "sha256:nginx", RepoTags: ["scalelab/nginx:74d9d9ac5455"], Size: 96_800_000, Created: at("2026-01-02T00:00:00Z") },
  { Id: "sha256:dangling", RepoTags: ["<none>:<none>"], Size: 574_000_000, Created: at("2026-01-03T00:00:00Z") },
  { Id: "sha256:untagged", RepoTags: null, Size: 1, Created: at("2026-01-03T00:00:00Z") },
  {
    Id: "sha256:mine",
    RepoTags: ["myapp:1.2", "myapp:latest"],
    Size: 90_000_000,
    Created: at("2026-01-05T00:00:00Z"),
    Labels: { "scalelab.user-image": "true", "scalelab.image": "true" },
  },
  { Id: "sha256:built", RepoTags: ["tools/redis:7"], Size: 120_000_000, Created: at("2026-01-04T00:00:00Z"), Labels: null },
];

describe("runnableImages", () => {
  it("lists each tag of the users' images newest first, without the lab's, its base or dangling ones", () => {
    expect(runnableImages(IMAGES)).toEqual([
      { reference: "myapp:1.2", id: "sha256:mine", size: 90_000_000, created: "2026-01-05T00:00:00.000Z", uploaded: true },
      { reference: "myapp:latest", id: "sha256:mine", size: 90_000_000, created: "2026-01-05T00:00:00.000Z", uploaded: true },
      { reference: "tools/redis:7", id: "sha256:built", size: 120_000_000, created: "2026-01-04T00:00:00.000Z", uploaded: false },
    ]);
  });

  it("is empty on an engine with only the lab's images", () => {
    expect(runnableImages(IMAGES.slice(0, 4))).toEqual([]);
  });
});

describe("labImageIds", () => {
  it("holds every image with a scalelab/ tag, so that re-tagging debian:bookworm-slim (the base) is refused", () => {
    expect(labImageIds(IMAGES)).toEqual(new Set(["sha256:base", "sha256:nginx"]));
  });
});
