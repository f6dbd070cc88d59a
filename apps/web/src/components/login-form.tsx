"use client";

import { useState } from "react";
import { safeNext } from "~/lib/login";

/** `/login`: paste a token; /api/session checks it and sets the session cookie. */
export function LoginForm({ next, session }: { next: string; session: { name: string } | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function send(method: "POST" | "DELETE") {
    setPending(true);
    setError(null);
    try {
      const res = await fetch("/api/session", {
        method,
        headers: { "content-type": "application/json" },
        body: method === "POST" ? JSON.stringify({ token }) : undefined,
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { message?: string; issues?: { message: string }[] } | null;
        setError(body?.issues?.[0]?.message ?? body?.message ?? `The lab answered ${res.status}`);
        return;
      }
      // A full load: the pages are served again with the new cookie (or without it).
      window.location.assign(method === "POST" ? safeNext(next) : "/login");
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="panel login">
      {session && (
        <div className="notice" data-testid="login-session">
          Logged in with the token &ldquo;{session.name}&rdquo;.{" "}
          <button type="button" className="btn btn-small" data-testid="logout" disabled={pending} onClick={() => void send("DELETE")}>
            Log out
          </button>
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send("POST");
        }}
      >
        <div className="field">
          <label htmlFor="login-token">API token</label>
          <input
            id="login-token"
            data-testid="login-token"
            type="password"
            autoComplete="off"
            value={token}
            placeholder="slb_…"
            aria-invalid={error ? true : undefined}
            aria-describedby="login-token-hint"
            onChange={(e) => setToken(e.target.value)}
          />
          <span id="login-token-hint" className={error ? "hint bad-text" : "hint"} data-testid="login-error">
            {error ?? (
              <>
                Made at <a href="/tokens">/tokens</a>, with <code>scalelab token create &lt;name&gt;</code>, or on the lab&apos;s host with{" "}
                <code>pnpm --filter @scalelab/lab lab token create &lt;name&gt;</code>
              </>
            )}
          </span>
        </div>
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" data-testid="login-submit" disabled={pending || token.trim() === ""}>
            Log in
          </button>
        </div>
      </form>
    </div>
  );
}
