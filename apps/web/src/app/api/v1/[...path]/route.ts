import { handleRest } from "~/server/rest/handler";

export const dynamic = "force-dynamic";

export { handleRest as GET, handleRest as POST };
