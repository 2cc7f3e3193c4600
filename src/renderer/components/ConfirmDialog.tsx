// A modal confirmation: Escape cancels, and the safe choice (Cancel) has focus first so a
// stray Enter never deletes anything. The dialog runs the confirmed call itself and stays open
// with its error when it fails.
import type { ReactNode } from 'react';
import { useAction } from '../lib/use-action';
import { ErrorNotice } from './ErrorNotice';
import { Modal } from './Modal';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The confirmed call; the dialog shows it as busy until it settles. */
  onConfirm: () => Promise<void>;
  onCancel: () => void;
  /** A confirmation of something that destroys nothing (e.g. starting a run) is not red. */
  tone?: 'danger' | 'primary';
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  tone = 'danger',
}: ConfirmDialogProps) {
  const { busy, error, run } = useAction<void>();
  return (
    <Modal
      title={title}
      onDismiss={() => {
        if (!busy) onCancel();
      }}
      actions={
        <>
          <button type="button" autoFocus disabled={busy} onClick={onCancel}>
            Cancel
          </button>
          <button
            type="button"
            className={tone}
            disabled={busy}
            onClick={() => void run(onConfirm)}
          >
            {busy ? 'Working…' : confirmLabel}
          </button>
        </>
      }
    >
      <div className="confirm-body">{children}</div>
      <ErrorNotice error={error} />
    </Modal>
  );
}
