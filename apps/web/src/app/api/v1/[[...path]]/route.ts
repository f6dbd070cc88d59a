import { handleRest } from "~/server/rest/handler";

export const dynamic = "force-dynamic";

// Every method reaches the handler, so that a method a path does not have is a JSON 405 with an
// Allow header (Next.js would answer an empty 405), and OPTIONS lists the path's methods. HEAD
// is Next.js's: the GET handler, without the body. TRACE, QUERY and other methods Next.js cannot
// route arrive as PATCH (server/methods.ts).
export { handleRest as GET, handleRest as POST, handleRest as PUT, handleRest as PATCH, handleRest as DELETE, handleRest as OPTIONS };
