"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";

/**
 * A question before something that cannot be undone (a delete, a revoke), as a native modal
 * <dialog>: focus moves into it, Escape closes it. Mounted only while asked, so a list of
 * thousands of rows holds no dialog per row. `testId` names the confirm button; the dialog and
 * its "Keep it" button are `${testId}-dialog` and `${testId}-keep`.
 */
export function ConfirmDialog(props: {
  title: ReactNode;
  children: ReactNode;
  confirmLabel: string;
  pendingLabel: string;
  /** What an error is prefixed with: "Could not delete". */
  errorPrefix: string;
  testId: string;
  pending: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} className="confirm-dialog" aria-labelledby={titleId} data-testid={`${props.testId}-dialog`} onClose={props.onClose}>
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
      {props.error && (
        <div className="error-box">
          {props.errorPrefix}: {props.error}
        </div>
      )}
      <div className="actions">
        <button type="button" className="btn" data-testid={`${props.testId}-keep`} onClick={props.onClose}>
          Keep it
        </button>
        <button type="button" className="btn btn-danger" data-testid={props.testId} disabled={props.pending} onClick={props.onConfirm}>
          {props.pending ? props.pendingLabel : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
