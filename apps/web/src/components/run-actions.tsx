"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { ConfirmDialog } from "./confirm-dialog";

/** A Delete button that asks first (ConfirmDialog). `what` names the thing in the question; `detail` says what goes with it. */
function ConfirmDelete({
  what,
  detail,
  testId,
  small,
  pending,
  error,
  onConfirm,
}: {
  what: string;
  detail: string;
  testId: string;
  small?: boolean;
  pending: boolean;
  error: string | null;
  onConfirm: () => void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={`btn btn-danger${small ? " btn-small" : ""}`} data-testid={testId} onClick={() => setOpen(true)}>
        Delete
      </button>
      {open && (
        <ConfirmDialog
          title={`Delete ${what}?`}
          confirmLabel="Delete"
          pendingLabel="Deleting…"
          errorPrefix="Could not delete"
          testId="confirm-delete"
          pending={pending}
          error={error}
          onConfirm={onConfirm}
          onClose={() => setOpen(false)}
        >
          <p>{detail}</p>
          <p className="muted">This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** Deletes a run (with its samples, events and figures), after a confirmation; a live one is cancelled first. */
export function DeleteRunButton({
  id,
  name,
  live,
  small,
  onDeleted,
}: {
  id: string;
  name: string;
  live: boolean;
  small?: boolean;
  onDeleted?: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const del = useMutation(
    trpc.runs.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.runs.list.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.experiments.list.pathKey() });
        onDeleted?.();
      },
    }),
  );
  return (
    <ConfirmDelete
      what={`run "${name}"`}
      detail={`Its per-second samples, events and figures go with it.${live ? " It is cancelled first, and removed once its containers are torn down." : ""}`}
      testId="delete-run"
      small={small}
      pending={del.isPending}
      error={del.error?.message ?? null}
      onConfirm={() => del.mutate({ id })}
    />
  );
}

/** Deletes an experiment with all its runs, after a confirmation; what is left of it is cancelled first. */
export function DeleteExperimentButton({
  id,
  name,
  runs,
  small,
  onDeleted,
}: {
  id: string;
  name: string;
  runs: number;
  small?: boolean;
  onDeleted?: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const del = useMutation(
    trpc.experiments.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.experiments.list.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.runs.list.pathKey() });
        onDeleted?.();
      },
    }),
  );
  return (
    <ConfirmDelete
      what={`experiment "${name}"`}
      detail={`Its ${runs} run${runs === 1 ? "" : "s"} go with it, with their samples, events and figures; runs still queued or running are cancelled first.`}
      testId="delete-experiment"
      small={small}
      pending={del.isPending}
      error={del.error?.message ?? null}
      onConfirm={() => del.mutate({ id })}
    />
  );
}

/** Queues the same definition again as a new stand-alone run and opens it. */
export function RerunButton({ id, small }: { id: string; small?: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const rerun = useMutation(
    trpc.runs.rerun.mutationOptions({
      onSuccess: async (ref) => {
        await queryClient.invalidateQueries({ queryKey: trpc.runs.list.pathKey() });
        router.push(`/runs/${ref.id}`);
      },
    }),
  );
  return (
    <>
      <button
        type="button"
        className={`btn${small ? " btn-small" : ""}`}
        data-testid="rerun"
        disabled={rerun.isPending}
        title={rerun.error ? `Could not re-run: ${rerun.error.message}` : "Run the same definition again as a new run"}
        onClick={() => rerun.mutate({ id })}
      >
        {rerun.isPending ? "Queueing…" : "Re-run"}
      </button>
      {rerun.error && (
        <span className="error-text" role="alert">
          Could not re-run: {rerun.error.message}
        </span>
      )}
    </>
  );
}

/** Opens the new-run form filled with this run's definition ("Copy" in a list's row, named in full for assistive technology). */
export function CopyRunLink({ id, small }: { id: string; small?: boolean }) {
  return (
    <Link
      className={`btn${small ? " btn-small" : ""}`}
      href={`/runs/new?from=${encodeURIComponent(id)}`}
      data-testid="copy-run-link"
      title="Open the new-run form filled with this run's definition"
      {...(small && { "aria-label": "Copy and change" })}
    >
      {small ? "Copy" : "Copy and change"}
    </Link>
  );
}
