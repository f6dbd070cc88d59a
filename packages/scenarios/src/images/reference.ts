/**
 * Docker image references a user may build or run: `name[:tag]`, as Docker's reference grammar
 * has them (github.com/distribution/reference), without registry ports or digests. The lab's own
 * images live under `scalelab/` (packages/images); that namespace is refused, so an upload can
 * never replace an image the lab runs.
 */

export const LAB_NAMESPACE = "scalelab";
export const DEFAULT_TAG = "latest";
/** Docker's limit on a repository name. */
export const MAX_NAME_LENGTH = 255;

const COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const NAME = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`);
const TAG_CHARS = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";
const TAG = new RegExp(`^${TAG_CHARS}$`);
/** The syntax of `name[:tag]` as one regular expression (for the OpenAPI document; the length and namespace rules are apart). */
export const REFERENCE_PATTERN = `^${COMPONENT}(?:/${COMPONENT})*(?::${TAG_CHARS})?$`;
/** The longest reference: the name, a colon and the tag. */
export const MAX_REFERENCE_LENGTH = MAX_NAME_LENGTH + 1 + 128;
/** Names Docker reads as Docker Hub: `docker.io/scalelab/x` is `scalelab/x`. */
const HUB_DOMAINS = new Set(["docker.io", "index.docker.io", "registry-1.docker.io"]);

export const REFERENCE_RULE =
  "name[:tag]: the name is lowercase path components of letters and digits, joined inside by . _ __ or -, separated by /, " +
  `at most ${MAX_NAME_LENGTH} characters; the tag 1–128 letters, digits, _ . - not starting with . or - (default ${DEFAULT_TAG})`;

export type ImageReference = { name: string; tag: string; reference: string };
export type ReferenceCheck = { ok: true; value: ImageReference } | { ok: false; message: string };

/** The repository's path as Docker Hub resolves it: without a Hub domain, and without `library/`. */
function hubPath(name: string): string[] {
  const parts = name.split("/");
  if (parts.length > 1 && HUB_DOMAINS.has(parts[0]!)) parts.shift();
  if (parts.length > 1 && parts[0] === "library") parts.shift();
  return parts;
}

/** Whether a repository name is in the lab's own namespace (`scalelab/…`, also spelt `docker.io/scalelab/…`). */
export function isLabName(name: string): boolean {
  const parts = hubPath(name);
  return parts.length > 1 && parts[0] === LAB_NAMESPACE;
}

/** The repository of a `name:tag` reference as the engine lists it (`RepoTags`). */
export function nameOf(reference: string): string {
  const slash = reference.lastIndexOf("/");
  const colon = reference.lastIndexOf(":");
  return colon > slash ? reference.slice(0, colon) : reference;
}

/**
 * Checks a reference given as `field` (e.g. `tag`) and completes it with the default tag.
 * `allowLab` leaves the lab's namespace open (for references a run reads, not ones an upload writes).
 */
export function parseImageReference(raw: string, field = "tag", opts: { allowLab?: boolean } = {}): ReferenceCheck {
  const fail = (why: string): ReferenceCheck => ({ ok: false, message: `${field} ${why}; expected ${REFERENCE_RULE}` });
  if (raw.length === 0) return fail("is empty");
  if (raw.includes("@")) return fail("must not be a digest (@sha256:…)");
  const colon = raw.indexOf(":");
  const name = colon === -1 ? raw : raw.slice(0, colon);
  const tag = colon === -1 ? DEFAULT_TAG : raw.slice(colon + 1);
  if (name.length > MAX_NAME_LENGTH) return fail(`has a name of ${name.length} characters`);
  if (!NAME.test(name)) return fail(`has an invalid name ${JSON.stringify(name.slice(0, 80))}`);
  if (!TAG.test(tag)) return fail(`has an invalid tag ${JSON.stringify(tag.slice(0, 80))}`);
  if (!opts.allowLab && isLabName(name)) {
    return { ok: false, message: `${field} must not be in the lab's own namespace ${LAB_NAMESPACE}/ (where the lab's images live)` };
  }
  return { ok: true, value: { name, tag, reference: `${name}:${tag}` } };
}
