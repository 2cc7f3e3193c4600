// A board's notifications: which characteristics a central subscribed to, the board file's
// periodic notifications while subscribed, and the payloads each source produces next (fixed,
// random, a drifting number or a counter), from the board's seeded PRNG.
import type { Clock, Timer } from '../../async/clock';
import { encodeNumber } from '../values/value-format';
import type { BoardDefinition } from './board-file';
import { characteristicKey as key } from './board-gatt-table';
import type { NotificationPayload } from './board-schema';
import type { SeededRandom } from './random';

export interface NotificationHooks {
  clock: Clock;
  rng: SeededRandom;
  periodic: BoardDefinition['periodic'];
  /** The characteristic's value becomes `data`, subscribed or not. */
  store(service: string, characteristic: string, data: Uint8Array): void;
  /** Sends `data` to the central on the link, if there is one. */
  notify(service: string, characteristic: string, data: Uint8Array): void;
}

export class BoardNotifications {
  private readonly subscribed = new Set<string>();
  private readonly periodicTimers = new Map<string, Timer[]>();
  private readonly counters = new Map<string, number>();

  constructor(private readonly hooks: NotificationHooks) {}

  subscribe(service: string, characteristic: string, on: boolean): void {
    const k = key(service, characteristic);
    if (on && !this.subscribed.has(k)) {
      this.subscribed.add(k);
      this.startPeriodic(k);
    } else if (!on && this.subscribed.has(k)) {
      this.subscribed.delete(k);
      this.stopPeriodic(k);
    }
  }

  isSubscribed(service: string, characteristic: string): boolean {
    return this.subscribed.has(key(service, characteristic));
  }

  /** The link went down: its subscriptions end with it. */
  endSubscriptions(): void {
    for (const k of [...this.subscribed]) this.stopPeriodic(k);
    this.subscribed.clear();
  }

  stopTimers(): void {
    for (const k of [...this.periodicTimers.keys()]) this.stopPeriodic(k);
  }

  /** The characteristic takes the source's next payload and notifies it if subscribed. */
  emit(
    service: string,
    characteristic: string,
    source: string,
    payload: NotificationPayload,
  ): void {
    const data = this.payload(source, payload);
    this.hooks.store(service, characteristic, data);
    if (this.isSubscribed(service, characteristic))
      this.hooks.notify(service, characteristic, data);
  }

  private startPeriodic(k: string): void {
    const [service, characteristic] = k.split('/') as [string, string];
    const timers: Timer[] = [];
    this.hooks.periodic.forEach((p, i) => {
      if (p.service !== service || p.characteristic !== characteristic) return;
      const tick = () => {
        this.emit(service, characteristic, `periodic:${i}`, p.payload);
        timers[i] = this.hooks.clock.setTimeout(tick, p.intervalMs);
      };
      timers[i] = this.hooks.clock.setTimeout(tick, p.intervalMs);
    });
    this.periodicTimers.set(k, timers);
  }

  private stopPeriodic(k: string): void {
    for (const t of this.periodicTimers.get(k) ?? []) if (t) this.hooks.clock.clearTimeout(t);
    this.periodicTimers.delete(k);
  }

  private payload(source: string, payload: NotificationPayload): Uint8Array {
    const { rng } = this.hooks;
    if (payload.kind === 'fixed') return Buffer.from(payload.hex, 'hex');
    if (payload.kind === 'random') return rng.bytes(payload.bytes);
    if (payload.kind === 'drift') {
      const last = this.counters.get(source) ?? payload.start ?? (payload.min + payload.max) / 2;
      const moved = last + (rng.next() * 2 - 1) * payload.step;
      const float = payload.type.startsWith('float');
      const next = Math.min(payload.max, Math.max(payload.min, float ? moved : Math.round(moved)));
      this.counters.set(source, next);
      return encodeNumber(payload.type, next);
    }
    const n = (this.counters.get(source) ?? 0) + 1;
    this.counters.set(source, n);
    const out = Buffer.alloc(payload.bytes);
    out.writeUIntLE(n % 2 ** (8 * payload.bytes), 0, payload.bytes);
    return out;
  }
}
