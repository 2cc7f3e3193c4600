// The H4 socket on a damaged stream: a real provisioning session's controller packets, damaged
// as a noisy line damages them (test/helpers/h4-relay.ts) and cut into random chunks, go through
// the socket to noble's own hci.js. Whatever the seed, nothing throws out of the socket, noble
// reads every packet it is given without throwing, and what was dropped is counted and traced.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Direction } from '../../../../src/core/ble/hci/btsnoop';
import { HCI_PACKET } from '../../../../src/core/ble/hci/codes';
import { H4Socket } from '../../../../src/core/ble/hci/h4-socket';
import { nobleOverSocket } from '../../../../src/core/ble/hci/noble-over-socket';
import { controllerPacketFault } from '../../../../src/core/ble/hci/packet-shape';
import { lineDamage } from '../../../helpers/h4-relay';
import { provisionOn, rig } from '../../provisioning/fixture';

const RESET_COMPLETE = Buffer.from([HCI_PACKET.event, 0x0e, 4, 1, 0x03, 0x0c, 0]);

/** A stream that the test feeds by hand and that swallows what the socket writes. */
class HandStream extends EventEmitter {
  written: Buffer[] = [];
  write(chunk: Buffer): boolean {
    this.written.push(chunk);
    return true;
  }
  destroy(): this {
    return this;
  }
}

/** One provisioning run on the simulated bench as the tap saw it, both ways, in order. */
let session: [Direction, Buffer][] = [];
beforeAll(async () => {
  const seen: [Direction, Buffer][] = [];
  const r = await rig(
    [
      {
        name: 'DB Test 1',
        address: 'c2:8e:20:00:00:01',
        advertising: { intervalMs: 20, rssi: { mean: -50, noise: 0 } },
        latency: { connectMs: 15, perOperationMs: 3 },
        provisioning: { profile: 'devicebench-v1', rebootMs: 50 },
      },
    ],
    { trace: (direction, packet) => seen.push([direction, Buffer.from(packet)]) },
  );
  try {
    await provisionOn(r, 'c2:8e:20:00:00:01');
  } finally {
    await r.close();
  }
  session = seen;
});

/**
 * The session replayed through `s`: what the host sent is written (so its answers are awaited),
 * what the controller sent goes through `damage` and arrives cut at `cuts` (positions in each
 * stretch between two host packets).
 */
function replay(
  s: Awaited<ReturnType<typeof socketUnderNoble>>,
  damage: (packet: Buffer) => Buffer[],
  cuts: number[] = [],
): void {
  let stretch: Buffer[] = [];
  const deliver = () => {
    const bytes = Buffer.concat(stretch);
    stretch = [];
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    let from = 0;
    for (const cut of [...at, bytes.length]) {
      if (cut > from) s.stream.emit('data', bytes.subarray(from, cut));
      from = Math.max(from, cut);
    }
  };
  for (const [direction, packet] of session) {
    if (direction === 'received') stretch.push(...damage(packet));
    else {
      deliver();
      s.socket.write(packet);
    }
  }
  deliver();
}

/** An H4 socket that has answered its Reset, with noble's hci.js reading what it passes on. */
async function socketUnderNoble() {
  const stream = new HandStream();
  const notes: string[] = [];
  const socket = new H4Socket(stream as unknown as Duplex, {
    label: 'the test stream',
    hint: '',
    trace: (_d, p) => {
      if (p[0] === HCI_PACKET.event && p[1] === 0xff)
        notes.push(Buffer.from(p.subarray(3)).toString('latin1'));
    },
  });
  const reset = socket.reset();
  stream.emit('data', RESET_COMPLETE);
  await reset;
  socket.start();
  const { bindings } = nobleOverSocket(socket);
  const hci = bindings._hci as { onSocketData(packet: Buffer): void };
  const given: Buffer[] = [];
  const nobleThrew: unknown[] = [];
  socket.on('data', (packet: Buffer) => {
    given.push(packet);
    try {
      hci.onSocketData(packet);
    } catch (err) {
      nobleThrew.push(err);
    }
  });
  const resets: string[] = [];
  socket.on('resetting', (why: string) => resets.push(why));
  return { stream, socket, notes, given, nobleThrew, resets };
}

describe('an H4 socket on a damaged stream', () => {
  it('passes the clean session on whole and in order, dropping nothing', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const s = await socketUnderNoble();
    replay(s, (packet) => [packet]);
    s.socket.stop();
    const received = session.filter(([d]) => d === 'received').map(([, p]) => p);
    expect(received.length).toBeGreaterThan(50);
    expect(s.given).toEqual(received);
    expect(s.socket.counts).toMatchObject({ resyncs: 0, skippedBytes: 0, malformed: 0 });
  });

  it('never lets an exception out, gives noble only whole packets and traces what it drops', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // A damaged run need not skip bytes: a truncated packet completed by the next one's bytes
    // can be well formed by every length it carries (an ACL payload is anything). So skipping is
    // counted over the runs, not asserted in each.
    let damaged = 0;
    let skipped = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(fc.nat(), { maxLength: 8 }), async (seed, cuts) => {
        const done: string[] = [];
        const faults = { insert: 0.15, truncate: 0.05, duplicate: 0.05, drop: 0.05 };
        const s = await socketUnderNoble();
        replay(s, lineDamage(seed, faults, done), cuts);
        s.socket.stop();
        for (const packet of s.given) expect(controllerPacketFault(packet)).toBeUndefined();
        expect(s.nobleThrew).toEqual([]);
        expect(s.resets.filter((why) => why.startsWith('the host stack'))).toEqual([]);
        if (done.includes('insert') || done.includes('truncate')) {
          damaged += 1;
          if (s.socket.counts.skippedBytes > 0) skipped += 1;
        }
        // Every run of dropped bytes that ended is in the trace, in words.
        expect(s.notes.filter((n) => n.startsWith('DeviceBench H4 resync'))).toHaveLength(
          s.socket.counts.resyncs,
        );
      }),
      { numRuns: 150 },
    );
    // Most damage is seen and dropped: inserted bytes and cut packets break a length or a shape.
    expect(damaged).toBeGreaterThan(0);
    expect(skipped / damaged).toBeGreaterThan(0.8);
  });
});
