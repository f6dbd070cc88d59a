"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatTimestamp } from "~/lib/format";
import { useTRPC } from "~/trpc/client";
import { ConfirmDialog } from "./confirm-dialog";

/** `/tokens`: the API tokens, a form that makes one (shown once), and revoke behind a confirmation. */
export function TokenList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions({}));
  const [name, setName] = useState("");
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: async (t) => {
        setCreated({ name: t.name, token: t.token });
        setName("");
        await queryClient.invalidateQueries({ queryKey: trpc.tokens.list.pathKey() });
      },
    }),
  );
  const nameIssue = create.error?.data?.issues?.find((i) => i.path === "name")?.message;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>API tokens</h1>
          <div className="sub">
            For the CLI (<code>SCALELAB_TOKEN</code>), scripts (<code>Authorization: Bearer …</code>) and logging in to the dashboard. Only
            a token&apos;s hash is kept: it is shown once, when it is made.
          </div>
        </div>
      </div>

      <form
        className="panel token-create"
        onSubmit={(e) => {
          e.preventDefault();
          setCreated(null);
          create.mutate({ name });
        }}
      >
        <div className="field">
          <label htmlFor="token-name">Name</label>
          <input
            id="token-name"
            data-testid="token-name"
            value={name}
            maxLength={200}
            placeholder="ci"
            aria-invalid={nameIssue ? true : undefined}
            aria-describedby="token-name-hint"
            onChange={(e) => setName(e.target.value)}
          />
          <span id="token-name-hint" className={nameIssue ? "hint bad-text" : "hint"}>
            {nameIssue ?? "What it is for, 1–80 characters"}
          </span>
        </div>
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" data-testid="token-create" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create token"}
          </button>
        </div>
        {create.error && !nameIssue && <div className="error-box">Could not create the token: {create.error.message}</div>}
      </form>

      {created && <NewToken name={created.name} token={created.token} onDone={() => setCreated(null)} />}

      {tokens.isPending ? (
        <div className="panel empty">Loading…</div>
      ) : tokens.isError ? (
        <div className="panel empty error-box">Could not load the tokens: {tokens.error.message}</div>
      ) : tokens.data.length === 0 ? (
        <div className="panel empty" data-testid="tokens-empty">
          No tokens yet.
        </div>
      ) : (
        <div className="panel table-scroll">
          <table className="data" data-testid="tokens">
            <thead>
              <tr>
                <th>Name</th>
                <th>Token</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Status</th>
                <th>Action</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.id} data-testid="token-row" data-token-id={t.id}>
                  <td className="name">{t.name}</td>
                  <td className="mono">{t.prefix}…</td>
                  <td>{formatTimestamp(t.createdAt)}</td>
                  <td>{t.lastUsedAt ? formatTimestamp(t.lastUsedAt) : <span className="muted">never</span>}</td>
                  <td data-testid="token-status">
                    {t.revokedAt ? (
                      <span className="badge badge-failed">revoked {formatTimestamp(t.revokedAt)}</span>
                    ) : (
                      <span className="badge badge-succeeded">active</span>
                    )}
                  </td>
                  <td>{!t.revokedAt && <RevokeButton id={t.id} name={t.name} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** The new token, this once, with a copy button. */
function NewToken({ name, token, onDone }: { name: string; token: string; onDone: () => void }) {
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  return (
    <div className="panel notice token-new" role="status" data-testid="token-new">
      <p>
        <strong>Token &ldquo;{name}&rdquo;</strong>: copy it now, <strong>you will not see it again</strong>.
      </p>
      <div className="token-value">
        <code className="mono" data-testid="token-value">
          {token}
        </code>
        <button
          type="button"
          className="btn"
          data-testid="token-copy"
          onClick={() => {
            // The clipboard API needs a secure context (https or localhost); elsewhere the text stays selectable.
            if (!navigator.clipboard) {
              setCopied("no");
              return;
            }
            navigator.clipboard.writeText(token).then(
              () => setCopied("yes"),
              () => setCopied("no"),
            );
          }}
        >
          Copy
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === "yes" && <p className="muted">Copied.</p>}
      {copied === "no" && <p className="muted">This browser did not let the page copy it: select the text and copy it.</p>}
    </div>
  );
}

function RevokeButton({ id, name }: { id: string; name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const revoke = useMutation(
    trpc.tokens.revoke.mutationOptions({
      onSuccess: async () => {
        setOpen(false);
        await queryClient.invalidateQueries({ queryKey: trpc.tokens.list.pathKey() });
      },
    }),
  );
  return (
    <>
      <button type="button" className="btn btn-danger btn-small" data-testid="token-revoke" onClick={() => setOpen(true)}>
        Revoke
      </button>
      {open && (
        <ConfirmDialog
          title={<>Revoke token &ldquo;{name}&rdquo;?</>}
          confirmLabel="Revoke"
          pendingLabel="Revoking…"
          errorPrefix="Could not revoke"
          testId="confirm-revoke"
          pending={revoke.isPending}
          error={revoke.error?.message ?? null}
          onConfirm={() => revoke.mutate({ id })}
          onClose={() => setOpen(false)}
        >
          <p>Scripts and CI jobs using it are refused from now on, and dashboard sessions opened with it end.</p>
          <p className="muted">This cannot be undone; make a new token to replace it.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
