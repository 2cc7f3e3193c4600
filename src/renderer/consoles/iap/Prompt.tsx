// The screens the in-app purchase SDK would show: the consent screen and the app store's
// payment sheet. Each answers yes or no; Escape is no.
import type { ReactNode } from 'react';
import { Modal } from '../../components/Modal';

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
  return (
    <Modal
      title={title}
      onDismiss={() => onAnswer(false)}
      actions={
        <>
          <button type="button" onClick={() => onAnswer(false)}>
            {no}
          </button>
          <button type="button" className="primary" onClick={() => onAnswer(true)}>
            {yes}
          </button>
        </>
      }
    >
      <div className="confirm-body">{children}</div>
    </Modal>
  );
}
