// The virtual controller's links take turns on one radio (src/core/ble/sim/connection-schedule.ts):
// a new link's events go where the others' are furthest, and an event ends when the next link's
// is due, so per-link throughput falls as links are added.
import { describe, expect, it } from 'vitest';
import {
  ConnectionSchedule,
  type ScheduledLink,
} from '../../../../src/core/ble/sim/connection-schedule';
import { EventBudget } from '../../../../src/core/ble/sim/link-airtime';

/** A link whose events fall every `intervalMs` from `first`. */
function grid(first: number, intervalMs: number): ScheduledLink {
  return { eventAfter: (t) => first + (Math.floor((t - first) / intervalMs) + 1) * intervalMs };
}

const timing = { intervalMs: 15, pdusPerEvent: 4, txPhy: '1M', rxPhy: '1M' } as const;

/** Exchanges of `octets`-octet PDUs (central to peripheral) one event holds in `roomUs`. */
function exchanges(octets: number, roomUs?: number): number {
  const budget = new EventBudget(timing, false, roomUs);
  let n = 0;
  while (n < 10 && budget.take(octets, undefined)) n++;
  return n;
}

describe('ConnectionSchedule', () => {
  it('places a lone link one interval on, and each further one in the widest gap', () => {
    const schedule = new ConnectionSchedule();
    const a = grid(1000, 15);
    expect(schedule.place(a, 1000, 15)).toBe(1015);
    schedule.add(a);
    // Link a's events fall at 1015, 1030...: the next link's at 7.5 ms from them.
    expect(schedule.place(grid(0, 15), 1003, 15)).toBe(1007.5);
    const b = grid(1007.5, 15);
    schedule.add(b);
    const third = schedule.place(grid(0, 15), 1020, 15);
    expect([1026.25, 1033.75]).toContain(third);
    schedule.add(grid(third, 15));
    // Four links at 15 ms: one event every 3.75 ms.
    const fourth = schedule.place(grid(0, 15), 1020, 15);
    const times = [1030, 1037.5, third, fourth]
      .map((t) => ((t % 15) + 15) % 15)
      .sort((x, y) => x - y);
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([3.75, 3.75, 3.75]);
  });

  it('ends an event when another link’s is due', () => {
    const schedule = new ConnectionSchedule();
    const a = grid(0, 15);
    const b = grid(3.75, 15);
    schedule.add(a);
    schedule.add(b);
    expect(schedule.roomUs(a, 15)).toBe(3750);
    expect(schedule.roomUs(b, 18.75)).toBe(11_250);
    schedule.remove(b);
    expect(schedule.roomUs(a, 15)).toBe(Infinity);
  });
});

describe('EventBudget with other links', () => {
  it('holds fewer exchanges in the room another link’s event leaves, at least one', () => {
    // Alone, the controller's 4 PDUs an event; 27 octets on LE 1M take 676 µs an exchange.
    expect(exchanges(27)).toBe(4);
    expect(exchanges(27, 3750)).toBe(4);
    expect(exchanges(27, 2000)).toBe(2);
    // 251 octets take 2,468 µs: six fit in 15 ms, one in a quarter of it.
    expect(exchanges(251)).toBe(4);
    expect(exchanges(251, 3750)).toBe(1);
    expect(exchanges(251, 100)).toBe(1);
  });
});
