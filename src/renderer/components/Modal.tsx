// The one modal shell: a <dialog> shown modally on mount (focus trapped, named by its title),
// where Escape means "dismiss". Confirmations and the simulated SDK screens are built on it.
import { useEffect, useId, useRef, type ReactNode } from 'react';

interface ModalProps {
  title: string;
  /** Escape, or the browser closing the dialog. */
  onDismiss: () => void;
  children: ReactNode;
  /** The buttons, in reading order; the safe one first. */
  actions: ReactNode;
}

export function Modal({ title, onDismiss, children, actions }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  // No cleanup: unmounting removes the dialog from the top layer, and closing it here would
  // fire a close event (read as a dismissal) when StrictMode re-runs effects in development.
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onDismiss();
      }}
      // Chromium closes a dialog on a repeated Escape even when cancel is prevented.
      onClose={onDismiss}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
      <div className="actions">{actions}</div>
    </dialog>
  );
}
