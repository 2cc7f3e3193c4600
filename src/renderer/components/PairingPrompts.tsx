// The person's part in a pairing, over every page of every window: type the passkey the board
// shows, confirm the six digits both sides show, or read out the passkey this station shows —
// within the specification's 30 s, counted down. It sits fixed at the top of the window, so it
// is in view whatever page is open and however far it scrolled (a batch, a dry run, the link
// card). The BLE process holds each prompt: an answer given in another window closes it here,
// and a timeout or refusal ends it with the SMP reason in words. When several stand (a batch of
// boards at once), only the top one is whole; the others are one line each that opens on a
// click, so the page behind — a batch's progress — stays in view (docs/decisions.md, "Pairing
// as a phone does").
import { useEffect, useId, useRef, useState, type RefObject } from 'react';
import type { PairingPrompt } from '../../core/ble/link-parameters';
import { useApi } from '../lib/api-context';
import { useAction } from '../lib/use-action';
import { usePairingPrompts, type ShownPrompt } from '../lib/use-pairing-prompts';
import { ErrorNotice } from './ErrorNotice';

const SIX_DIGITS = /^\d{6}$/;

function digits(value: number): string {
  return String(value).padStart(6, '0');
}

/** The board as the person knows it: its name, else its address. */
function boardOf(prompt: PairingPrompt): string {
  return prompt.board ?? prompt.deviceId.replace(/(..)(?!$)/g, '$1:').toUpperCase();
}

/** Whole seconds left of the prompt's limit, ticking while it is open. */
function useSecondsLeft({ prompt, heardAt }: ShownPrompt): number {
  const [now, setNow] = useState(() => performance.now());
  const open = prompt.state === 'open';
  useEffect(() => {
    if (!open) return;
    const timer = setInterval(() => setNow(performance.now()), 250);
    return () => clearInterval(timer);
  }, [open]);
  return Math.max(0, Math.ceil((prompt.remainingMs - (now - heardAt)) / 1000));
}

/**
 * Open prompts on top, the one whose time runs out first above the others; answered and ended
 * ones below. A batch of several boards at once has several prompts standing while the last
 * pairings' outcomes still show: the ones waiting for the person must not be pushed out of view.
 */
function byUrgency(shown: ShownPrompt[]): ShownPrompt[] {
  const deadline = ({ prompt, heardAt }: ShownPrompt) =>
    prompt.state === 'open' ? heardAt + prompt.remainingMs : Number.POSITIVE_INFINITY;
  // Ended ones compare equal (the sort is stable), so they keep the order they were heard in.
  return [...shown].sort((a, b) => Math.sign(deadline(a) - deadline(b)) || 0);
}

/**
 * Focus for a prompt as it opens — unless the person is already answering another one: a second
 * board's prompt must not take the keys typed into the first, nor scroll the stack under them.
 */
function useFocusUnlessAnswering<T extends HTMLElement>(): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (document.activeElement?.closest('.pairing-prompts')) return;
    ref.current?.focus({ preventScroll: true });
  }, []);
  return ref;
}

export function PairingPrompts() {
  const { prompts, dismiss } = usePairingPrompts();
  // The prompts below the top one that the person opened.
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  if (prompts.length === 0) return null;
  return (
    <section className="pairing-prompts" aria-label="Pairing requests">
      {byUrgency(prompts).map((shown, index) => (
        <PromptCard
          key={shown.prompt.id}
          shown={shown}
          compact={index > 0 && !opened.has(shown.prompt.id)}
          onOpen={() => setOpened((ids) => new Set(ids).add(shown.prompt.id))}
          onDismiss={() => dismiss(shown.prompt.id)}
        />
      ))}
    </section>
  );
}

/** What a compact card asks, after the board's name (which comes first: it tells them apart). */
const SHORT_ASKS: Record<PairingPrompt['kind'], string> = {
  enterPasskey: 'enter its passkey',
  confirmNumber: 'compare its number',
  displayPasskey: 'type a passkey on it',
};

/** A compact card's state in a word or two, beside its title. */
const STATE_WORDS: Record<Exclude<PairingPrompt['state'], 'open'>, string> = {
  answered: 'answered',
  paired: 'paired',
  failed: 'failed',
};

interface PromptCardProps {
  shown: ShownPrompt;
  /** One line, opened by a click: another prompt stands above it. */
  compact: boolean;
  onOpen: () => void;
  onDismiss: () => void;
}

function PromptCard({ shown, compact, onOpen, onDismiss }: PromptCardProps) {
  const { prompt } = shown;
  const titleId = useId();
  const seconds = useSecondsLeft(shown);
  const board = boardOf(prompt);
  const title =
    prompt.kind === 'enterPasskey'
      ? `Enter the passkey ${board} shows`
      : prompt.kind === 'confirmNumber'
        ? `Does ${board} show this number?`
        : `Type this passkey on ${board}`;
  if (compact)
    return (
      <div
        className={`pairing-prompt pairing-compact pairing-${prompt.state}`}
        role="alertdialog"
        aria-label={`Pairing · ${title}`}
        data-testid="pairing-prompt"
        data-state={prompt.state}
      >
        <h2>
          <button type="button" className="link" aria-expanded={false} onClick={onOpen}>
            {board} — {SHORT_ASKS[prompt.kind]}
          </button>
        </h2>
        <span className="pairing-compact-state">
          {prompt.state === 'open' ? `${seconds} s left` : STATE_WORDS[prompt.state]}
        </span>
        {prompt.state === 'failed' && (
          <button type="button" onClick={onDismiss}>
            Dismiss
          </button>
        )}
      </div>
    );
  return (
    <div
      className={`pairing-prompt pairing-${prompt.state}`}
      role="alertdialog"
      aria-labelledby={titleId}
      data-testid="pairing-prompt"
      data-state={prompt.state}
    >
      <h2 id={titleId}>Pairing · {title}</h2>
      {prompt.state === 'open' ? (
        <>
          <OpenPrompt prompt={prompt} />
          <p className="pairing-countdown" aria-live="off">
            <meter min={0} max={prompt.timeoutMs / 1000} value={seconds} aria-label="Time left" />
            {seconds} s left (the pairing’s {prompt.timeoutMs / 1000} s limit)
          </p>
        </>
      ) : prompt.state === 'answered' || prompt.state === 'paired' ? (
        <p role="status">Answered — pairing with {board}…</p>
      ) : (
        <div role="alert" className="pairing-outcome bad">
          <p>
            Pairing with {board} failed: {prompt.message ?? 'it ended'}
          </p>
          <button type="button" onClick={onDismiss}>
            Dismiss
          </button>
        </div>
      )}
    </div>
  );
}

function OpenPrompt({ prompt }: { prompt: PairingPrompt }) {
  const api = useApi();
  const send = useAction();
  const [passkey, setPasskey] = useState('');
  const [checked, setChecked] = useState(false);
  const inputId = useId();
  const confirmRef = useFocusUnlessAnswering<HTMLButtonElement>();
  const passkeyRef = useFocusUnlessAnswering<HTMLInputElement>();
  const answer = (given: { passkey?: number; confirm?: boolean }) =>
    void send.run(() => api.ble.answerPairing({ deviceId: prompt.deviceId, ...given }));

  if (prompt.kind === 'displayPasskey')
    return (
      <p className="pairing-value" aria-label="Passkey to type on the board">
        {digits(prompt.passkey)}
      </p>
    );

  if (prompt.kind === 'confirmNumber')
    return (
      <>
        <p className="pairing-value" aria-label="Number to compare">
          {digits(prompt.value)}
        </p>
        <div className="actions">
          <button type="button" onClick={() => answer({ confirm: false })} disabled={send.busy}>
            Reject
          </button>
          <button
            type="button"
            className="primary"
            ref={confirmRef}
            onClick={() => answer({ confirm: true })}
            disabled={send.busy}
          >
            Confirm
          </button>
        </div>
        <ErrorNotice error={send.error} />
      </>
    );

  const problem = SIX_DIGITS.test(passkey)
    ? undefined
    : 'The passkey must be the six digits the board shows, e.g. 012345.';
  return (
    <form
      className="pairing-passkey"
      onSubmit={(event) => {
        event.preventDefault();
        setChecked(true);
        if (!problem) answer({ passkey: Number(passkey) });
      }}
    >
      <label htmlFor={inputId}>Passkey</label>
      <input
        id={inputId}
        className="mono"
        inputMode="numeric"
        autoComplete="one-time-code"
        ref={passkeyRef}
        maxLength={6}
        value={passkey}
        aria-invalid={checked && problem !== undefined}
        aria-describedby={checked && problem ? `${inputId}-error` : undefined}
        onChange={(event) => setPasskey(event.target.value.trim())}
      />
      {checked && problem && (
        <p id={`${inputId}-error`} className="field-error" role="alert">
          {problem}
        </p>
      )}
      <div className="actions">
        <button type="button" onClick={() => answer({})} disabled={send.busy}>
          Reject
        </button>
        <button type="submit" className="primary" disabled={send.busy}>
          Pair
        </button>
      </div>
      <ErrorNotice error={send.error} />
    </form>
  );
}
