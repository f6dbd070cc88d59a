import { appRouter } from "~/server/routers/_app";
import { deps } from "~/server/runtime";
import { createTrpcHandler } from "~/server/trpc-http";

export const dynamic = "force-dynamic";

const handler = createTrpcHandler({ router: appRouter, createContext: () => ({ deps }) });

export { handler as GET, handler as POST };
