import { appRouter } from "~/server/routers/_app";
import { authenticateRequest } from "~/server/auth/request";
import { deps } from "~/server/runtime";
import { createTrpcHandler } from "~/server/trpc-http";

export const dynamic = "force-dynamic";

const handler = createTrpcHandler({ router: appRouter, createContext: () => ({ deps }), authenticate: authenticateRequest });

// PUT, PATCH and DELETE (and TRACE, QUERY, …, handed on as PATCH by server/methods.ts) reach the handler too,
// for a 405 in tRPC's JSON error shape instead of Next.js's empty one.
// OPTIONS too, or Next.js's own would list those methods as allowed.
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
