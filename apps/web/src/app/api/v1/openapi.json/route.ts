import { WWW_AUTHENTICATE } from "~/server/auth/auth";
import { authenticateRequest } from "~/server/auth/request";
import { requestMethod } from "~/server/http";
import { restError } from "~/server/rest/errors";
import { openApiDocument } from "~/server/rest/openapi";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const auth = await authenticateRequest(req);
  if (!auth.ok)
    return restError(auth.status, { error: auth.error, message: auth.message }, auth.status === 401 ? WWW_AUTHENTICATE : undefined);
  return Response.json(openApiDocument());
}

const allow = "GET, HEAD, OPTIONS";

/** Any other method (TRACE, QUERY, … too, handed on as PATCH by server/methods.ts): a JSON 405, as elsewhere in /api/v1. */
function notAllowed(req: Request) {
  const method = requestMethod(req);
  return restError(405, { error: "method_not_allowed", message: `${method} is not allowed here; allowed: ${allow}` }, { allow });
}

/** The methods it has; Next.js's own OPTIONS would list the ones above too. */
export function OPTIONS() {
  return new Response(null, { status: 204, headers: { allow } });
}

export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
