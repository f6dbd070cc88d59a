import { z } from "zod";

/**
 * API tokens (issue 17): what a token looks like, its name, and when the lab requires one. The
 * token itself is made and hashed by @scalelab/db/tokens (node:crypto); this is the contract the
 * web, the CLI and the lab's host command share.
 */

/** Every token starts with it, so that secret scanners and people can tell one. */
export const TOKEN_PREFIX = "slb_";

/** Random bytes in a token: 32 (256 bits), base64url after the prefix (43 characters). */
export const TOKEN_BYTES = 32;

/** `slb_` and 43 base64url characters. */
export const TOKEN_PATTERN = /^slb_[A-Za-z0-9_-]{43}$/;

/** How much of a token lists show (`slb_` and 6 characters): enough to tell tokens apart, far too little to guess one. */
export const TOKEN_DISPLAY_CHARS = 10;

export const TOKEN_NAME = { min: 1, max: 80 } as const;

/**
 * 1–80 characters, no control characters, not only spaces. Said as a pattern rather than a trim
 * and a refinement, so that the OpenAPI document states the same rule the API applies.
 */
export const ZTokenName = z
  .string({ error: "name must be a string of 1–80 characters" })
  .min(TOKEN_NAME.min, { error: `name must be 1–${TOKEN_NAME.max} characters (e.g. "ci")` })
  .max(TOKEN_NAME.max, { error: `name must be at most ${TOKEN_NAME.max} characters` })
  .regex(/^[^\u0000-\u001f\u007f]*[^ \u0000-\u001f\u007f][^\u0000-\u001f\u007f]*$/, {
    error: "name must not be only spaces nor contain control characters (newlines, tabs)",
  });

/** A token's shown part: its first TOKEN_DISPLAY_CHARS characters. */
export function tokenDisplayPrefix(token: string): string {
  return token.slice(0, TOKEN_DISPLAY_CHARS);
}

/** Whether a string has a token's shape; anything else is refused before any lookup. */
export function isTokenText(s: string): boolean {
  return TOKEN_PATTERN.test(s);
}

/**
 * What an Authorization header says: none; a bearer credential (the text after `Bearer `, scheme
 * matched case-insensitively as RFC 9110 says); or `malformed` (another scheme, or no credential).
 */
export function bearerOf(header: string | null | undefined): { kind: "none" } | { kind: "bearer"; token: string } | { kind: "malformed" } {
  if (header === null || header === undefined || header.trim() === "") return { kind: "none" };
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return m ? { kind: "bearer", token: m[1]! } : { kind: "malformed" };
}

/**
 * Whether an address the web listens on is loopback only: 127.0.0.0/8, ::1 (also written
 * [::1] or as ::ffff:127.x.y.z) and localhost. Anything else (0.0.0.0, ::, a LAN address, a
 * name) may be reached from another machine.
 */
export function isLoopbackAddress(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (h.startsWith("::ffff:")) h = h.slice("::ffff:".length);
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return v4 !== null && v4.slice(1).every((o) => Number(o) <= 255) && v4[1] === "127";
}

export const AUTH_MODES = ["auto", "required"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/**
 * Whether every API call and page needs a token, whatever a request's Host: always with
 * SCALELAB_AUTH=required; else when the web listens on anything but loopback (an unknown listen
 * address counts as not loopback: `next start` without -H listens on every interface); else when
 * SCALELAB_ALLOWED_HOSTS (`allowedHosts`) names a host that is not loopback: the lab is then meant
 * to be reached under that name, through a reverse proxy in front of a web bound to 127.0.0.1.
 */
export function tokenRequired(listenHost: string | undefined, mode: AuthMode, allowedHosts: readonly string[] = []): boolean {
  return (
    mode === "required" || listenHost === undefined || !isLoopbackAddress(listenHost) || allowedHosts.some((h) => !isLoopbackAddress(h))
  );
}

/**
 * Whether one request needs a token: when the lab always does (`labWide`, tokenRequired), or when
 * it was addressed to a host that is not loopback (its Host, or a proxy's X-Forwarded-Host): it
 * came from another machine or through a proxy. `hosts` are host names without ports; a request
 * without a Host (undefined) counts as not loopback.
 */
export function requestNeedsToken(labWide: boolean, host: string | undefined, forwardedHosts: readonly string[] = []): boolean {
  return labWide || host === undefined || !isLoopbackAddress(host) || forwardedHosts.some((h) => !isLoopbackAddress(h));
}
