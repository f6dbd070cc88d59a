/** The top bar's links, in order. `/reference` renders the OpenAPI document (its JSON stays at /api/v1/openapi.json). */
export const NAV_ITEMS = [
  { key: "home", label: "Home", href: "/" },
  { key: "runs", label: "Runs", href: "/runs" },
  { key: "new-run", label: "New run", href: "/runs/new" },
  { key: "experiments", label: "Experiments", href: "/experiments" },
  { key: "presets", label: "Presets", href: "/presets" },
  { key: "api", label: "API", href: "/reference" },
  { key: "tokens", label: "Tokens", href: "/tokens" },
] as const;

/**
 * The link a path belongs to: the longest href that is the path or a folder above it, so that
 * `/runs/new` is "New run", `/runs/<id>` is "Runs" and `/compare` is none.
 */
export function currentNavItem(pathname: string | null): string | undefined {
  if (!pathname) return undefined;
  const matches = NAV_ITEMS.filter((i) => (i.href === "/" ? pathname === "/" : pathname === i.href || pathname.startsWith(`${i.href}/`)));
  return matches.sort((a, b) => b.href.length - a.href.length)[0]?.href;
}
