import { verifyApiToken } from "@scalelab/db/tokens";
import { isTokenText } from "@scalelab/scenarios/contract";
import { cookies, headers } from "next/headers";
import { LoginForm } from "~/components/login-form";
import { safeNext } from "~/lib/login";
import { envAuthPolicy, SESSION_COOKIE, tokenNeeded } from "~/server/auth/auth";
import { deps } from "~/server/runtime";

export const dynamic = "force-dynamic";
export const metadata = { title: "Log in · Scalelab" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams;
  const cookie = (await cookies()).get(SESSION_COOKIE)?.value;
  const token = cookie && isTokenText(cookie) ? await verifyApiToken(deps.db, cookie) : null;
  const h = await headers();
  const required = tokenNeeded(envAuthPolicy(), h.get("host"), h.get("x-forwarded-host"));
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Log in</h1>
          <div className="sub">
            {required
              ? "This lab is reachable from other machines (or through a proxy), so its pages and API need an API token. Paste one to open a session in this browser."
              : "This lab listens on loopback only: tokens are optional here. A session opened with one is checked like a token."}
          </div>
        </div>
      </div>
      <LoginForm next={safeNext(typeof next === "string" ? next : null)} session={token ? { name: token.name } : null} />
    </>
  );
}
