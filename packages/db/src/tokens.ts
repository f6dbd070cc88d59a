import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { ApiToken, PrismaClient } from "./generated/client";

/**
 * API tokens as stored: the token is `slb_` and 32 random bytes in base64url (the shape
 * @scalelab/scenarios/contract TOKEN_PATTERN checks; apps/web's tokens test holds them together),
 * shown once when it is made; the table keeps its SHA-256 and its first characters. A fast hash is
 * right for 256 random bits (nothing to brute-force, unlike a password), as GitHub does, and a
 * lookup by the hash's unique index leaks nothing of the token through timing.
 */

/** What lists show of a token: no hash. */
export type ApiTokenInfo = Omit<ApiToken, "hash">;

const PREFIX = "slb_";
const DISPLAY_CHARS = 10;
/** last_used_at is written at most this often per token. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export function generateToken(): string {
  return PREFIX + randomBytes(32).toString("base64url");
}

/** Hex SHA-256 of the token's UTF-8 bytes. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

const info = ({ hash: _hash, ...rest }: ApiToken): ApiTokenInfo => rest;

/** A new token named `name` (validated by the caller): its text, to show once, and its row. */
export async function createApiToken(db: PrismaClient, name: string): Promise<{ token: string; info: ApiTokenInfo }> {
  const token = generateToken();
  const row = await db.apiToken.create({
    data: { id: randomUUID(), name, prefix: token.slice(0, DISPLAY_CHARS), hash: hashToken(token) },
  });
  return { token, info: info(row) };
}

/** Every token, newest first, revoked ones too. */
export async function listApiTokens(db: PrismaClient): Promise<ApiTokenInfo[]> {
  const rows = await db.apiToken.findMany({ orderBy: [{ createdAt: "desc" }, { id: "asc" }], omit: { hash: true } });
  return rows;
}

/** Revokes the token (once: a second revoke keeps the first time); null when there is no such token. */
export async function revokeApiToken(db: PrismaClient, id: string, now = new Date()): Promise<ApiTokenInfo | null> {
  await db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  return db.apiToken.findUnique({ where: { id }, omit: { hash: true } });
}

/**
 * The unrevoked token with this text, or null; its last_used_at moves forward when it is older
 * than LAST_USED_RESOLUTION_MS (one conditional UPDATE, so concurrent requests write it once).
 */
export async function verifyApiToken(db: PrismaClient, token: string, now = new Date()): Promise<ApiTokenInfo | null> {
  const row = await db.apiToken.findUnique({ where: { hash: hashToken(token) }, omit: { hash: true } });
  if (!row || row.revokedAt !== null) return null;
  const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (row.lastUsedAt === null || row.lastUsedAt < stale) {
    const { count } = await db.apiToken.updateMany({
      where: { id: row.id, revokedAt: null, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: stale } }] },
      data: { lastUsedAt: now },
    });
    if (count > 0) return { ...row, lastUsedAt: now };
  }
  return row;
}
