// What the emulator did: every platform request and admin change, newest last, bounded, and
// pushed to listeners (the app streams it to the Emulator page and the status bar).
import { EventEmitter } from 'node:events';
import type { Activity } from './schema';

const CAPACITY = 1000;

export class ActivityLog {
  private entries: Activity[] = [];
  private seq = 0;
  private readonly emitter = new EventEmitter();

  /** Called once per request, so it stays cheap: trimmed in batches, no event without listeners. */
  record(entry: Omit<Activity, 'seq'>): void {
    const full = { ...entry, seq: ++this.seq };
    this.entries.push(full);
    if (this.entries.length > CAPACITY * 2) this.entries = this.entries.slice(-CAPACITY);
    if (this.emitter.listenerCount('activity') > 0) this.emitter.emit('activity', full);
  }

  recent(limit = 100): Activity[] {
    return this.entries.slice(-limit);
  }

  onActivity(listener: (a: Activity) => void): () => void {
    this.emitter.on('activity', listener);
    return () => this.emitter.off('activity', listener);
  }
}
