// Runs an API call for a form, button or dialog, keeping its busy flag, its error and what it
// answered. The last answer stays shown while the next call runs, and a failure replaces it.
import { useCallback, useState } from 'react';

interface Outcome<T> {
  value?: T;
  error?: unknown;
}

export interface Action<T> {
  busy: boolean;
  error: unknown;
  /** What the last successful call answered, until a later one fails. */
  value: T | undefined;
  /** Resolves to whether the call succeeded; its error is kept, never thrown. */
  run: (call: () => Promise<T>) => Promise<boolean>;
}

export function useAction<T = unknown>(): Action<T> {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome<T>>({});
  const run = useCallback(async (call: () => Promise<T>) => {
    setBusy(true);
    setOutcome((prev) => ({ value: prev.value }));
    try {
      setOutcome({ value: await call() });
      return true;
    } catch (error) {
      setOutcome({ error });
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error: outcome.error, value: outcome.value, run };
}
