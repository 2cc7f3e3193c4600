// What an action did is said where the click was, and brought into view when it changes: a
// short window, or the rows the action removed above it, would otherwise leave it out of sight.
import { useEffect, useRef } from 'react';

/** A ref for the element that says `said`; it scrolls just into view each time `said` changes. */
export function useSaidInView<T extends HTMLElement>(said: unknown) {
  const ref = useRef<T>(null);
  // A block, not an arrow's value: Chromium's scrollIntoView returns a promise now, which React
  // would take for the effect's cleanup and call.
  useEffect(() => {
    void ref.current?.scrollIntoView({ block: 'nearest' });
  }, [said]);
  return ref;
}
