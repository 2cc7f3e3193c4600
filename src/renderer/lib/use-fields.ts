// When a form shows its problems, and a form's text inputs. A field's problems appear once the
// user has left it (blur) or has tried to save, never while a fresh form waits to be filled;
// a save with problems shows them all and takes the user to the first
// (docs/decisions.md, "Validation that reads like a person").
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useState,
  type FocusEvent,
} from 'react';
import { messagesFor } from './errors';

/** True inside a form the user has tried to save: every field shows its problems. */
export const FieldsRevealed = createContext(false);

/**
 * Whether a field shows its problems: after it was left once, or once its form was revealed.
 * `onBlur` marks it left; spread it onto the input (after any handler of its own).
 */
export function useShownAfterLeaving<E extends HTMLElement>(
  onBlur?: (event: FocusEvent<E>) => void,
) {
  const revealed = useContext(FieldsRevealed);
  const [left, setLeft] = useState(false);
  return {
    shown: left || revealed,
    onBlur: (event: FocusEvent<E>) => {
      setLeft(true);
      onBlur?.(event);
    },
  };
}

/**
 * A form's save attempt: `reveal()` shows every field's problems (wrap the form in
 * `<FieldsRevealed value={revealed}>`) and then focuses and scrolls to the first field marked
 * invalid inside the element with the returned `id`. A form that opens on values the user did not
 * just type (a restored draft, a loaded one) starts revealed: its problems are not news.
 */
export function useReveal(initiallyRevealed = false) {
  const id = useId();
  const [revealed, setRevealed] = useState(initiallyRevealed);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (attempt === 0) return;
    // The first invalid input, or a problem of a whole part of the form (it has no input).
    const first = document
      .getElementById(id)
      ?.querySelector<HTMLElement>('[aria-invalid="true"], .field-error');
    first?.scrollIntoView({ block: 'center' });
    if (first?.matches('[aria-invalid="true"]')) first.focus();
  }, [attempt, id]);
  const reveal = useCallback(() => {
    setRevealed(true);
    setAttempt((n) => n + 1);
  }, []);
  const reset = useCallback(() => setRevealed(false), []);
  /** `id` is for the form's element. */
  return { id, revealed, reveal, reset };
}

/** A problem a field's text has, checked in the form before anything is sent. */
type FieldRule = (text: string) => string | undefined;

/**
 * A form's text inputs, each named for the API field it fills, so each input can show the
 * messages the API gave for its field and the form's error notice lists only the others.
 * `rules` are checked in the form: a field's problem shows once it was left or on `check()`.
 */
export function useFields<Name extends string>(
  initial: Record<Name, string>,
  error: unknown,
  rules: Partial<Record<Name, FieldRule>> = {},
) {
  const [values, setValues] = useState(initial);
  const [left, setLeft] = useState<ReadonlySet<Name>>(new Set());
  const form = useReveal();
  const set = (name: Name, value: string) => setValues((prev) => ({ ...prev, [name]: value }));
  const problem = (name: Name) => rules[name]?.(values[name]);
  const names = Object.keys(initial) as Name[];
  return {
    values,
    set,
    /** The TextField props for the input filling `name`. */
    bind: (name: Name) => {
      const own = problem(name);
      const shown = left.has(name) || form.revealed;
      return {
        name,
        value: values[name],
        onChange: (value: string) => set(name, value),
        onBlur: () => setLeft((prev) => new Set(prev).add(name)),
        messages: own === undefined ? messagesFor(error, name) : shown ? [own] : [],
      };
    },
    names,
    /** The form element's id, for `check()` to find its first invalid field. */
    id: form.id,
    /** Before sending: false, with every problem shown and the first focused, if a rule fails. */
    check(): boolean {
      if (names.every((name) => problem(name) === undefined)) return true;
      form.reveal();
      return false;
    },
    /** After a save: the initial values, and a form as fresh as it first was. */
    clear() {
      setValues(initial);
      setLeft(new Set());
      form.reset();
    },
  };
}
