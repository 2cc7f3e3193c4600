// The confirmation modal `$commonProfile.get` shows: the user ticks what they share. Unticked
// scopes are withheld, and come back undefined.
import { useState } from 'react';
import type { CommonProfileScope } from '../../../core/platform/common-profile/schema';
import { Modal } from '../../components/Modal';
import { Checkbox } from '../../components/Checkbox';

export function ConsentDialog({
  scopes,
  onAnswer,
}: {
  scopes: CommonProfileScope[];
  onAnswer: (granted: CommonProfileScope[]) => void;
}) {
  const [granted, setGranted] = useState<CommonProfileScope[]>(scopes);
  return (
    <Modal
      title="Share your profile?"
      onDismiss={() => onAnswer([])}
      actions={
        <>
          <button type="button" onClick={() => onAnswer([])}>
            Share nothing
          </button>
          <button type="button" className="primary" onClick={() => onAnswer(granted)}>
            Allow
          </button>
        </>
      }
    >
      <p className="confirm-body">
        The app asks for these items. Untick what you keep to yourself.
      </p>
      <div className="stack" role="group" aria-label="Items to share">
        {scopes.map((s) => (
          <Checkbox
            key={s}
            label={`Share ${s}`}
            checked={granted.includes(s)}
            onChange={(on) =>
              setGranted((prev) => (on ? [...prev, s] : prev.filter((x) => x !== s)))
            }
          />
        ))}
      </div>
    </Modal>
  );
}
