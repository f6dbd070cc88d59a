import { randomBytes } from "node:crypto";
import { z } from "zod";

/**
 * The control plane's secrets: the Postgres admin role's and app role's passwords and Redis's.
 * Generated on the first start, kept in the lab's state directory (mode 0600) and, so that
 * every checkout driving the same containers agrees on them, in the Postgres data volume
 * (readable only through the Docker engine).
 */
export type ControlPlaneSecrets = { postgresAdminPassword: string; postgresAppPassword: string; redisPassword: string };

/** URL-safe: base64url's alphabet only, so it needs no escaping in a URL, a shell word or a config line. */
const ZPassword = z.string().regex(/^[A-Za-z0-9_-]{32,128}$/, { error: "a password must be 32–128 characters of [A-Za-z0-9_-]" });

export const ZControlPlaneSecrets = z.strictObject({
  postgresAdminPassword: ZPassword,
  postgresAppPassword: ZPassword,
  redisPassword: ZPassword,
});

/** 192 random bits as 32 base64url characters. */
export function generatePassword(): string {
  return randomBytes(24).toString("base64url");
}

export function generateSecrets(): ControlPlaneSecrets {
  return { postgresAdminPassword: generatePassword(), postgresAppPassword: generatePassword(), redisPassword: generatePassword() };
}

/** Parses a stored secrets document; `where` names it in the error. */
export function parseSecrets(text: string, where: string): ControlPlaneSecrets {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text: it could hold a secret.
    throw new Error(`${where}: not JSON`);
  }
  const parsed = ZControlPlaneSecrets.safeParse(json);
  if (!parsed.success) throw new Error(`${where}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function postgresUrl(o: { user: string; password: string; host: string; port: number; database: string }): string {
  return `postgresql://${encodeURIComponent(o.user)}:${encodeURIComponent(o.password)}@${o.host}:${o.port}/${encodeURIComponent(o.database)}`;
}

export function redisUrl(o: { password: string; host: string; port: number; db: number }): string {
  if (!Number.isInteger(o.db) || o.db < 0 || o.db > 15) throw new Error(`redis-db must be an integer 0–15, got ${o.db}`);
  return `redis://:${encodeURIComponent(o.password)}@${o.host}:${o.port}/${o.db}`;
}
