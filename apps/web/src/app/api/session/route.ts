import { verifyApiToken } from "@scalelab/db/tokens";
import { createSessionHandler } from "~/server/auth/session";
import { deps } from "~/server/runtime";

export const dynamic = "force-dynamic";

const handler = createSessionHandler((token) => verifyApiToken(deps.db, token));

export { handler as POST, handler as DELETE, handler as GET, handler as PUT, handler as PATCH };
