// The screens the in-app purchase SDK would show: the consent screen and the app store's
// payment sheet. Each answers yes or no; Escape is no.
import { useEffect, useRef, type ReactNode } from 'react';

export function Prompt({
  title,
  yes,
  no,
  onAnswer,
  children,
}: {
  title: string;
  yes: string;
  no: string;
  onAnswer: (yes: boolean) => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby="iap-prompt-title"
      onCancel={(event) => {
        event.preventDefault();
        onAnswer(false);
      }}
    >
      <h2 id="iap-prompt-title">{title}</h2>
      <div className="confirm-body">{children}</div>
      <div className="actions">
        <button type="button" onClick={() => onAnswer(false)}>
          {no}
        </button>
        <button type="button" className="primary" onClick={() => onAnswer(true)}>
          {yes}
        </button>
      </div>
    </dialog>
  );
}
