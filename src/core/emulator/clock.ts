// The emulator's virtual clock: real time plus an offset the admin API moves forward, so
// expiry and history windows can be reached in a test without waiting. The offset persists,
// bounded (MAX_CLOCK_OFFSET_MS) so every date the emulator makes stays a valid date.
import { MAX_CLOCK_OFFSET_MS } from './schema';
import { readMeta, writeMeta, type Db } from './store';

export class Clock {
  private offset: number;

  constructor(private readonly db: Db) {
    const stored = Number(readMeta(db, 'clockOffsetMs') ?? '0');
    // A file written before the bound (or by hand) may hold anything: start from real time then.
    this.offset = withinBound(stored) ? stored : 0;
  }

  now(): number {
    return Date.now() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Moves the clock forward; false (and no move) when it would go past the bound. */
  advance(ms: number): boolean {
    if (!withinBound(this.offset + ms)) return false;
    this.offset += ms;
    writeMeta(this.db, 'clockOffsetMs', String(this.offset));
    return true;
  }

  reset(): void {
    this.offset = 0;
    writeMeta(this.db, 'clockOffsetMs', '0');
  }
}

function withinBound(offset: number): boolean {
  return Number.isSafeInteger(offset) && offset >= 0 && offset <= MAX_CLOCK_OFFSET_MS;
}
