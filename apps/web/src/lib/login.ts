/** Any origin: a `next` is resolved against it, and must stay on it. */
const BASE = "http://scalelab.invalid";

/**
 * Where to go once logged in: a path of this lab, else the home page. The path is resolved as the
 * browser would resolve it (`/\t/evil.com` and `/\evil.com` are `//evil.com` to a URL parser, which
 * strips tabs and newlines and reads `\` as `/`), and must stay on the lab's origin; control
 * characters are refused outright. What is returned is the parsed path, query and fragment.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || /[\u0000-\u001f\u007f]/.test(next)) return "/";
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return "/";
  }
  return url.origin === BASE ? `${url.pathname}${url.search}${url.hash}` : "/";
}
