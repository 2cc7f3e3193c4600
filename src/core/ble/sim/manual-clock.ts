// The simulated bench's manual clock: tests (and the scenario engine's dry runs) move it forward
// by hand so every latency and timer is deterministic. Real runs use the wall clock
// (src/core/async/clock.ts).
import type { Clock, Timer } from '../../async/clock';

interface Pending {
  id: number;
  at: number;
  callback: () => void;
}

/** Lets the event loop settle: promise callbacks and the I/O-free immediates they queue. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock that only moves when told. `advance` fires due timers in time order (ties in the
 * order they were set) and lets promises settle after each, so a chain such as "write, board
 * answers after 5 ms, caller writes again" runs within one `advance`.
 */
export class ManualSimClock implements Clock {
  private time: number;
  private pending: Pending[] = [];
  private nextId = 1;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): Timer {
    const id = this.nextId++;
    this.pending.push({ id, at: this.time + Math.max(0, ms), callback });
    return { id };
  }

  clearTimeout(timer: Timer): void {
    this.pending = this.pending.filter((p) => p.id !== timer.id);
  }

  /** How many timers are waiting. */
  get timerCount(): number {
    return this.pending.length;
  }

  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`advance: ms must be >= 0, got ${ms}`);
    const target = this.time + ms;
    await settle();
    for (;;) {
      const due = this.nextDue(target);
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.time = due.at;
      due.callback();
      await settle();
    }
    this.time = target;
    await settle();
  }

  private nextDue(target: number): Pending | undefined {
    let best: Pending | undefined;
    for (const p of this.pending)
      if (p.at <= target && (!best || p.at < best.at || (p.at === best.at && p.id < best.id)))
        best = p;
    return best;
  }
}
