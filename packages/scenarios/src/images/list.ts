import { z } from "zod";
import { isLabName, nameOf } from "./reference";

/** Labels the lab puts on the images it builds from an upload. */
export const USER_IMAGE_LABEL = "scalelab.user-image";
export const UPLOADED_AT_LABEL = "scalelab.uploaded-at";

/** An image as the engine lists it (`GET /images/json`), the fields used here. */
export type EngineImage = {
  Id: string;
  RepoTags?: readonly string[] | null;
  Size: number;
  /** Unix seconds. */
  Created: number;
  Labels?: Readonly<Record<string, string>> | null;
};

export const ZRunnableImage = z.object({
  reference: z.string().describe("name:tag, as a run's topology.service.image takes it"),
  id: z.string().describe("the image id, sha256:…"),
  size: z.number().int().nonnegative().describe("bytes"),
  created: z.iso.datetime().describe("when the image was built"),
  uploaded: z.boolean().describe("built by the lab from an uploaded build context (POST /images)"),
});
export type TRunnableImage = z.infer<typeof ZRunnableImage>;

const DANGLING = "<none>:<none>";

/**
 * What a run can use: one entry per tag of the engine's images, newest first, leaving out dangling
 * images and the lab's own, that is every image with a tag in `scalelab/` (including the Debian
 * base the lab tags as `scalelab/base` and its upstream name, which share the id).
 */
export function runnableImages(images: readonly EngineImage[]): TRunnableImage[] {
  const tagsOf = (image: EngineImage) => (image.RepoTags ?? []).filter((t) => t !== DANGLING && t.includes(":"));
  const out: TRunnableImage[] = [];
  for (const image of images) {
    const tags = tagsOf(image);
    if (tags.some((t) => isLabName(nameOf(t)))) continue;
    for (const reference of tags) {
      out.push({
        reference,
        id: image.Id,
        size: Math.max(0, Math.round(image.Size)),
        created: new Date(image.Created * 1000).toISOString(),
        uploaded: image.Labels?.[USER_IMAGE_LABEL] === "true",
      });
    }
  }
  return out.sort((a, b) => b.created.localeCompare(a.created) || a.reference.localeCompare(b.reference));
}

/** The ids of the lab's own images, which an upload must not re-tag. */
export function labImageIds(images: readonly EngineImage[]): Set<string> {
  return new Set(images.filter((i) => (i.RepoTags ?? []).some((t) => isLabName(nameOf(t)))).map((i) => i.Id));
}
