/** Where to go once logged in: a path of this lab (never `//host` or another site), else the home page. */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}
