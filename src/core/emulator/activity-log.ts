// What the emulator did: every platform request and admin change, newest last, bounded, and
// pushed to listeners (the app streams it to the Emulator page and the status bar).
import { EventEmitter } from 'node:events';
import { maskTarget } from '../platform/secret-mask';
import type { Activity } from './schema';

const CAPACITY = 1000;

interface Held {
  /** The request target as it came: masked into the entry's `path` once somebody reads it. */
  target: string;
  entry: Omit<Activity, 'path'>;
  shown?: Activity;
}

export class ActivityLog {
  private entries: Held[] = [];
  private seq = 0;
  private readonly emitter = new EventEmitter();

  /**
   * Called once per request, so it stays cheap: trimmed in batches, no event without listeners,
   * and the target masked only when read — most entries are trimmed unread, and masking was a
   * measurable share of a small request (bench/emulator-throughput.ts). What is held unmasked
   * is the process's own memory, which holds the channels' secrets anyway; nothing leaves it
   * unmasked.
   */
  record(target: string, entry: Omit<Activity, 'seq' | 'path'>): void {
    const held: Held = { target, entry: { ...entry, seq: ++this.seq } };
    this.entries.push(held);
    if (this.entries.length > CAPACITY * 2) this.entries = this.entries.slice(-CAPACITY);
    if (this.emitter.listenerCount('activity') > 0) this.emitter.emit('activity', shown(held));
  }

  recent(limit = 100): Activity[] {
    return this.entries.slice(-limit).map(shown);
  }

  onActivity(listener: (a: Activity) => void): () => void {
    this.emitter.on('activity', listener);
    return () => this.emitter.off('activity', listener);
  }
}

function shown(held: Held): Activity {
  return (held.shown ??= { ...held.entry, path: maskTarget(held.target) });
}
