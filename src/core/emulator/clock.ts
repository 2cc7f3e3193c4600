// The emulator's virtual clock: real time plus an offset the admin API moves forward, so
// expiry and history windows can be reached in a test without waiting. The offset persists.
import { readMeta, writeMeta, type Db } from './store';

export class Clock {
  private offset: number;

  constructor(private readonly db: Db) {
    this.offset = Number(readMeta(db, 'clockOffsetMs') ?? '0');
  }

  now(): number {
    return Date.now() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  advance(ms: number): void {
    this.offset += ms;
    writeMeta(this.db, 'clockOffsetMs', String(this.offset));
  }

  reset(): void {
    this.offset = 0;
    writeMeta(this.db, 'clockOffsetMs', '0');
  }
}
