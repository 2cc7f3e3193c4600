// The simulated link keeps its connection events when the process running it wakes late, as a
// controller keeps them whatever its host's process is doing (src/core/ble/sim/link.ts): the
// events slept through run at once, each with what the host had queued by its time.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/core/async/clock';
import { Link, type LinkEvents } from '../../../../src/core/ble/sim/link';
import { ManualSimClock } from '../../../../src/core/ble/sim/manual-clock';

const TIMING = {
  intervalMs: 15,
  supervisionTimeoutMs: 4_000,
  dataLength: 27,
  pdusPerEvent: 1,
  txPhy: '1M' as const,
  rxPhy: '1M' as const,
};

/** A process `lateMs` behind on every timer it sets for later; one due now runs at once. */
function lateClock(clock: ManualSimClock, lateMs: number): Clock {
  return {
    now: () => clock.now(),
    setTimeout: (callback, ms) => clock.setTimeout(callback, ms > 0 ? ms + lateMs : 0),
    clearTimeout: (timer) => clock.clearTimeout(timer),
  };
}

/**
 * Completion times of a link's host packets, one PDU each: `queued` handed over at 0, and with
 * `inTurn` each further one only once the one before went out (a host with one ACL buffer),
 * up to `inTurn` of them.
 */
async function sent(lateMs: number, untilMs: number, queued: number, inTurn = 0) {
  const manual = new ManualSimClock(0);
  const done: number[] = [];
  // A one-PDU L2CAP frame: its 4-octet header and 23 octets.
  const packet = () => Buffer.concat([Buffer.from([23, 0, 4, 0]), Buffer.alloc(23)]);
  const events: LinkEvents = {
    toHost: () => undefined,
    completed: (_, count) => {
      for (let i = 0; i < count; i++) done.push(manual.now());
      if (done.length < inTurn) link.fromHostPacket(packet(), true);
    },
    down: () => undefined,
  };
  const link = new Link(1, lateClock(manual, lateMs), TIMING, events);
  link.attach({ receive: () => undefined, closed: () => undefined, eventsPerPdu: () => 1 });
  for (let i = 0; i < queued; i++) link.fromHostPacket(packet(), true);
  await manual.advance(untilMs);
  return done;
}

describe('the simulated link on a process that wakes late', () => {
  it('carries a PDU in each event it slept through, as on time', async () => {
    expect(await sent(0, 200, 8)).toEqual([15, 30, 45, 60, 75, 90, 105, 120]);
    // 45 ms late on every timer: the wake at 60 runs the events at 15, 30, 45 and 60, the one
    // at 120 those up to 120. Without catching up it was one event a wake: three by 200.
    expect(await sent(45, 200, 8)).toEqual([60, 60, 60, 60, 120, 120, 120, 120]);
  });

  it('puts nothing in an event before the host queued it', async () => {
    expect(await sent(0, 200, 1, 4)).toEqual([15, 30, 45, 60]);
    // The host hands over each next packet at the wake that freed its buffer: the events
    // slept through before then carry nothing of it, so a late host is as late as it is.
    expect(await sent(45, 300, 1, 4)).toEqual([60, 60, 120, 120]);
  });
});
