import { verifyApiToken } from "@scalelab/db/tokens";
import { deps } from "../runtime";
import { authenticate, envAuthPolicy, type AuthResult } from "./auth";

/** The lab's own check of a request: its environment's policy, its database's tokens. */
export function authenticateRequest(req: Request): Promise<AuthResult> {
  return authenticate(req, envAuthPolicy(), (token) => verifyApiToken(deps.db, token));
}
