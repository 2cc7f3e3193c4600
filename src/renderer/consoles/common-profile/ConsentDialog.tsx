// The confirmation modal `$commonProfile.get` shows: the user ticks what they share. Unticked
// scopes are withheld, and come back undefined.
import { useEffect, useRef, useState } from 'react';
import type { CommonProfileScope } from '../../../core/platform/common-profile/schema';
import { Checkbox } from '../embedded-apps/controls';

export function ConsentDialog({
  scopes,
  onAnswer,
}: {
  scopes: CommonProfileScope[];
  onAnswer: (granted: CommonProfileScope[]) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [granted, setGranted] = useState<CommonProfileScope[]>(scopes);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby="profile-consent-title"
      onCancel={(event) => {
        event.preventDefault();
        onAnswer([]);
      }}
    >
      <h2 id="profile-consent-title">Share your profile?</h2>
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
      <div className="actions">
        <button type="button" onClick={() => onAnswer([])}>
          Share nothing
        </button>
        <button type="button" className="primary" onClick={() => onAnswer(granted)}>
          Allow
        </button>
      </div>
    </dialog>
  );
}
