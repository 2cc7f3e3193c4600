// A modal confirmation built on <dialog>: focus is trapped, Escape cancels, and the safe
// choice (Cancel) has focus first so a stray Enter never deletes anything. The dialog runs the
// confirmed call itself and stays open with its error when it fails.
import { useEffect, useRef, type ReactNode } from 'react';
import { useAction } from '../lib/use-action';
import { ErrorNotice } from './ErrorNotice';

export interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The confirmed call; the dialog shows it as busy until it settles. */
  onConfirm: () => Promise<void>;
  onCancel: () => void;
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const { busy, error, run } = useAction<void>();

  // No cleanup: unmounting removes the dialog from the top layer, and closing it here would
  // fire a close event (read as Cancel) when StrictMode re-runs effects in development.
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby="confirm-title"
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
      // Chromium closes a dialog on a repeated Escape even when cancel is prevented.
      onClose={onCancel}
    >
      <h2 id="confirm-title">{title}</h2>
      <div className="confirm-body">{children}</div>
      <ErrorNotice error={error} />
      <div className="actions">
        <button type="button" autoFocus disabled={busy} onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => void run(onConfirm)}
        >
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
