// Long board lists (a tray of 500 in the scan, a batch's rows) draw their first rows until the
// user asks for all, so typing and live updates stay smooth.
import { useState, type ReactNode } from 'react';

/** Rows drawn before "Show all". */
const FIRST_ROWS = 100;

/** The rows to draw, and the "Show all" / "Show the first" button when there are more. */
export function useFirstRows<T>(rows: readonly T[]): { shown: readonly T[]; more: ReactNode } {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? rows : rows.slice(0, FIRST_ROWS);
  const more = rows.length > FIRST_ROWS && (
    <button type="button" className="link" onClick={() => setShowAll(!showAll)}>
      {showAll ? `Show the first ${FIRST_ROWS}` : `Show all ${rows.length} boards`}
    </button>
  );
  return { shown, more };
}
