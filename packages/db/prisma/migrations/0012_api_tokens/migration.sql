-- API tokens (issue 17): `Authorization: Bearer slb_…` or the dashboard's session cookie. Only the
-- token's SHA-256 is kept (the token is 32 random bytes, so a fast hash is enough, as GitHub's);
-- `prefix` is its first characters, shown to tell tokens apart. Revoked tokens stay listed.
CREATE TABLE "api_tokens" (
  "id" TEXT PRIMARY KEY,
  "name" TEXT NOT NULL,
  "prefix" TEXT NOT NULL,
  "hash" TEXT NOT NULL,
  "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "last_used_at" TIMESTAMP(3),
  "revoked_at" TIMESTAMP(3)
);
CREATE UNIQUE INDEX "api_tokens_hash_key" ON "api_tokens"("hash");
CREATE INDEX "api_tokens_created_at_idx" ON "api_tokens"("created_at");
