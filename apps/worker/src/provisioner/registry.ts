import Docker from "dockerode";

/** A Swarm engine's registry: where the lab host pushes and where the nodes pull the same images. */
export type EngineRegistry = { push: string; pull: string };

/** Where images the plan names by their id (`sha256:<hex>`) go, tagged with that id. */
export const BY_ID_REPO = "scalelab/by-id";

/**
 * The image's reference in the registry at `registry` (host:port): its repository and tag under
 * that host (`scalelab/testbed:0123abcd` → `10.0.0.2:5000/scalelab/testbed:0123abcd`); an image
 * id `sha256:<hex>` is `scalelab/by-id:sha256-<hex>`, a digest becomes the tag `sha256-<hex>`, and
 * an image with neither is `latest`.
 */
export function registryRef(registry: string, image: string): { repo: string; tag: string; ref: string } {
  // An image pinned by its id (a user's image, as the plan runs it): its content hash is the tag.
  const id = /^sha256:([0-9a-f]{64})$/.exec(image)?.[1];
  if (id) return { repo: `${registry}/${BY_ID_REPO}`, tag: `sha256-${id}`, ref: `${registry}/${BY_ID_REPO}:sha256-${id}` };
  const [named, digest] = image.split("@") as [string, string | undefined];
  const slash = named.lastIndexOf("/");
  const colon = named.lastIndexOf(":");
  const hasTag = colon > slash;
  const repo = hasTag ? named.slice(0, colon) : named;
  const tag = digest ? digest.replace(":", "-") : hasTag ? named.slice(colon + 1) : "latest";
  if (!repo || !/^[a-z0-9]+(?:[._/-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/.test(repo)) {
    throw new Error(`image ${JSON.stringify(image)} has no repository name a registry takes`);
  }
  return { repo: `${registry}/${repo}`, tag, ref: `${registry}/${repo}:${tag}` };
}

const MANIFEST_TYPES = [
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
].join(", ");

/** Whether the registry (plain HTTP, as the test cluster's) has a manifest for the image's tag. */
export async function registryHas(registry: string, image: string, signal?: AbortSignal): Promise<boolean> {
  const { repo, tag } = registryRef(registry, image);
  const path = repo.slice(registry.length + 1);
  const res = await fetch(`http://${registry}/v2/${path}/manifests/${encodeURIComponent(tag)}`, {
    method: "HEAD",
    headers: { accept: MANIFEST_TYPES },
    signal: signal ?? AbortSignal.timeout(10_000),
  }).catch((err: Error) => {
    throw new Error(`the engine's registry at ${registry} does not answer: ${err.message}`);
  });
  if (res.status === 200) return true;
  if (res.status === 404) return false;
  throw new Error(`the engine's registry at ${registry} answered HTTP ${res.status} for ${repo}:${tag}`);
}

/**
 * Pushes the images (present on the host engine) to the registry, skipping those it already has
 * (their tags are content hashes, so the same tag is the same image). The push goes through a
 * temporary tag `registry.push/<repo>:<tag>`, removed afterwards. Returns what was pushed and skipped.
 */
export async function pushImages(
  host: Docker,
  registry: EngineRegistry,
  images: readonly string[],
  signal?: AbortSignal,
): Promise<{ pushed: string[]; skipped: string[] }> {
  const pushed: string[] = [];
  const skipped: string[] = [];
  for (const image of new Set(images)) {
    signal?.throwIfAborted();
    if (await registryHas(registry.push, image, signal)) {
      skipped.push(image);
      continue;
    }
    const { repo, tag, ref } = registryRef(registry.push, image);
    await host.getImage(image).tag({ repo, tag });
    try {
      // The engine wants an X-Registry-Auth header even for a registry without authentication.
      const options = { authconfig: { serveraddress: registry.push }, abortSignal: signal };
      const stream = (await host.getImage(ref).push(options as object)) as NodeJS.ReadableStream;
      await new Promise<void>((resolve, reject) =>
        host.modem.followProgress(stream, (err: Error | null, events: { error?: string; errorDetail?: { message?: string } }[]) => {
          const failed = err?.message ?? events.find((e) => e.error)?.error;
          if (failed) reject(new Error(`pushing ${image} to ${registry.push} failed: ${failed}`));
          else resolve();
        }),
      );
    } finally {
      await host
        .getImage(ref)
        .remove({ noprune: true })
        .catch(() => undefined);
    }
    pushed.push(image);
  }
  return { pushed, skipped };
}
