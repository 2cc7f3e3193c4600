// Webhook history paging (docs/platform-api.md#iap-server): a 7-day window with inclusive bounds,
// ascending by the time delivery started, and an opaque cursor that is only honoured while every
// other query parameter stays the same (otherwise paging starts again from the first page).
import type { HistoryQuery } from '../../platform/iap/schema';

export interface CursorPosition {
  /** Virtual-clock ms the last returned delivery started, and its delivery id (tie-break). */
  startedAt: number;
  id: number;
}

/** The parameters a cursor is bound to, as the caller gave them. */
export function queryKey(query: HistoryQuery): string {
  return JSON.stringify([
    query.startEpochSeconds ?? null,
    query.endEpochSeconds ?? null,
    query.pageSize ?? null,
    query.status ?? null,
  ]);
}

export function encodeCursor(key: string, position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ k: key, s: position.startedAt, i: position.id })).toString(
    'base64url',
  );
}

/** The position to continue from; `first` when the cursor was made for other parameters. */
export function decodeCursor(cursor: string, key: string): CursorPosition | 'first' | 'invalid' {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      !value ||
      typeof value !== 'object' ||
      !('k' in value && 's' in value && 'i' in value) ||
      typeof value.k !== 'string' ||
      typeof value.s !== 'number' ||
      typeof value.i !== 'number'
    )
      return 'invalid';
    return value.k === key ? { startedAt: value.s, id: value.i } : 'first';
  } catch {
    return 'invalid';
  }
}
