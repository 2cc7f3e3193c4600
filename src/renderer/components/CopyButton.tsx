// A small button that copies a value and says so for a moment.
import { useEffect, useState } from 'react';
import { maskSecret } from '../../core/platform/secret-mask';
import { copyText } from '../lib/clipboard';

type Outcome = 'idle' | 'copied' | 'failed';

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [outcome, setOutcome] = useState<Outcome>('idle');

  useEffect(() => {
    if (outcome === 'idle') return;
    const timer = setTimeout(() => setOutcome('idle'), 1500);
    return () => clearTimeout(timer);
  }, [outcome]);

  return (
    <button
      type="button"
      className={`copy ${outcome}`}
      aria-label={`Copy ${label}`}
      title={`Copy ${label}`}
      onClick={async () => setOutcome((await copyText(value)) ? 'copied' : 'failed')}
    >
      {outcome === 'copied' ? '✓' : outcome === 'failed' ? '✗' : <CopyIcon />}
      <span className="offscreen" role="status">
        {outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Copy failed' : ''}
      </span>
    </button>
  );
}

function CopyIcon() {
  return (
    <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
      <rect x="5.5" y="5.5" width="8" height="9" rx="1" fill="none" stroke="currentColor" />
      <path d="M3.5 10.5h-1v-9h8v1" fill="none" stroke="currentColor" />
    </svg>
  );
}

/** An id or UUID in monospace with its copy button. */
export function CopyableId({ value, label }: { value: string; label: string }) {
  return (
    <span className="copyable">
      <code className="mono">{value}</code>
      <CopyButton value={value} label={label} />
    </span>
  );
}

/** A term and its copyable id, inside a `<dl className="facts">`. */
export function IdFact({ term, value, label }: { term: string; value: string; label: string }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>
        <CopyableId value={value} label={label} />
      </dd>
    </>
  );
}

/**
 * A credential shown masked ("•••• nrV_") with a button that copies the whole value without
 * drawing it (docs/decisions.md, "Secrets in requests").
 */
export function CopyableSecret({ value, label }: { value: string; label: string }) {
  return (
    <span className="copyable">
      <code className="mono">{maskSecret(value)}</code>
      <CopyButton value={value} label={label} />
    </span>
  );
}
