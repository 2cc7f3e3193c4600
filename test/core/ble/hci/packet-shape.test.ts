// The check that keeps malformed packets from noble, against noble itself: any event noble
// parses, whole or cut or padded, is either refused (or, a Command Complete for no command, kept
// back) or read by noble's own hci.js (and its GAP above it) without an exception or a "Caught
// illegal packet" warning.
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HCI_CMD, HCI_PACKET } from '../../../../src/core/ble/hci/codes';
import { nobleOverSocket } from '../../../../src/core/ble/hci/noble-over-socket';
import {
  controllerPacketFault,
  isNoCommandComplete,
} from '../../../../src/core/ble/hci/packet-shape';
import type { HciSocket } from '../../../../src/core/ble/hci/socket';

afterEach(() => vi.restoreAllMocks());

/** A socket that takes whatever noble writes and sends nothing by itself. */
class QuietSocket extends EventEmitter implements HciSocket {
  bindRaw = () => 0;
  bindUser = () => 0;
  bindControl() {}
  isDevUp = () => true;
  setFilter() {}
  start() {}
  stop() {}
  write() {}
  getDeviceList = () => [];
}

/** noble's hci.js over a quiet socket: `read` hands it one packet as its socket would. */
function nobleHci(): { read: (packet: Buffer) => void } {
  const { bindings } = nobleOverSocket(new QuietSocket());
  const hci = bindings._hci as { onSocketData(packet: Buffer): void };
  return { read: (packet) => hci.onSocketData(packet) };
}

const event = (code: number, params: Uint8Array) =>
  Buffer.concat([Buffer.from([HCI_PACKET.event, code, params.length & 0xff]), params]);

const bytes = (max: number) => fc.uint8Array({ maxLength: max });

/** A report of an LE (Extended) Advertising Report: fixed part, data length, data, then the rest. */
const report = (fixed: number, lengthAt: number) =>
  fc
    .tuple(fc.uint8Array({ minLength: fixed - 1, maxLength: fixed - 1 }), bytes(31))
    .map(([head, data]) => {
      const out = new Uint8Array(fixed + data.length);
      out.set(head.subarray(0, lengthAt), 0);
      out[lengthAt] = data.length;
      out.set(data, lengthAt + 1);
      out.set(head.subarray(lengthAt), lengthAt + 1 + data.length);
      return out;
    });

const reports = (sub: number, fixed: number, lengthAt: number) =>
  fc
    .array(report(fixed, lengthAt), { minLength: 1, maxLength: 3 })
    .map((rs) => Buffer.concat([Buffer.from([sub, rs.length]), ...rs]));

/** Parameters as the events noble reads them are laid out: whole, then possibly damaged. */
const wholeParams = fc.oneof(
  fc.tuple(fc.constantFrom(0x05, 0x08, 0x0f), fc.uint8Array({ minLength: 4, maxLength: 4 })),
  fc.tuple(
    fc.constant(0x0e),
    fc
      .tuple(
        fc.constantFrom(
          0,
          HCI_CMD.reset,
          HCI_CMD.readLeHostSupported,
          HCI_CMD.readLocalVersion,
          HCI_CMD.readSupportedCommands,
          HCI_CMD.readBdAddr,
          HCI_CMD.leSetScanParameters,
          HCI_CMD.leSetScanEnable,
          HCI_CMD.readRssi,
          HCI_CMD.leReadBufferSize,
          HCI_CMD.readBufferSize,
        ),
        fc.constantFrom(0, 0x0c),
        bytes(70),
      )
      .map(([op, status, rest]) =>
        Buffer.concat([Buffer.from([1, op & 0xff, op >> 8, status]), rest]),
      ),
  ),
  fc.tuple(
    fc.constant(0x13),
    fc
      .array(fc.uint8Array({ minLength: 4, maxLength: 4 }), { maxLength: 3 })
      .map((hs) => Buffer.concat([Buffer.from([hs.length]), ...hs])),
  ),
  fc.tuple(
    fc.constant(0x3e),
    fc.oneof(
      fc
        .tuple(fc.constantFrom(0x01, 0x03, 0x0a), bytes(32))
        .map(([sub, rest]) => Buffer.concat([Buffer.from([sub]), rest])),
      reports(0x02, 10, 8),
      reports(0x0d, 24, 23),
    ),
  ),
);

/** Cut short, padded, or with the first parameter byte (a count, a subevent) changed. */
const damaged = fc
  .tuple(wholeParams, fc.nat(), bytes(6), fc.integer({ min: 0, max: 3 }), fc.nat(255))
  .map(([[code, params], cut, pad, how, first]) => {
    const p = Buffer.from(params);
    if (how === 1) return event(code, p.subarray(0, cut % (p.length + 1)));
    if (how === 2) return event(code, Buffer.concat([p, pad]));
    if (how === 3 && p.length) p[code === 0x3e ? 1 : 0] = first;
    return event(code, p);
  });

describe('packets noble can read', () => {
  it('never lets through an event that makes noble throw or warn of an illegal packet', () => {
    const noble = nobleHci();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    let passed = 0;
    let refusedThatThrow = 0;
    fc.assert(
      fc.property(damaged, (packet) => {
        // The H4 socket keeps a Command Complete for no command from noble as well.
        const fault = controllerPacketFault(packet) ?? isNoCommandComplete(packet);
        warn.mockClear();
        let threw: unknown;
        try {
          noble.read(packet);
        } catch (err) {
          threw = err;
        }
        if (fault) {
          if (threw || warn.mock.calls.length) refusedThatThrow += 1;
          return;
        }
        passed += 1;
        expect(threw).toBeUndefined();
        expect(warn).not.toHaveBeenCalled();
      }),
      { numRuns: 3_000 },
    );
    // Both sides were met: packets that pass, and refused ones noble would have thrown on.
    expect(passed).toBeGreaterThan(300);
    expect(refusedThatThrow).toBeGreaterThan(100);
  });

  it('names what is wrong with a packet, and passes a whole one', () => {
    const fault = (h: string) => controllerPacketFault(Buffer.from(h.replace(/ /g, ''), 'hex'));
    expect(fault('04 13 02 40 20')).toBe('a Number Of Completed Packets of 2 bytes for 64 handles');
    expect(fault('04 0e 03 01 00 00')).toBeUndefined();
    expect(fault('04 0e 04 01 01 10 00')).toBe(
      'a Command Complete for 0x1001 with 0 of its 8 return bytes',
    );
    expect(fault('04 3e 04 02 01 00 00')).toBe(
      'an LE Advertising Report shorter than its 1 reports',
    );
    expect(fault('02 40 20 05 00 01 00 04 00 0b')).toBeUndefined();
    expect(fault('02 40 20 09 00 01 00 04 00 0b')).toBe(
      'an ACL packet whose length says 9 but carries 5',
    );
    expect(fault('02 40 20 03 00 01 00 04')).toBe(
      'an ACL start fragment shorter than its L2CAP header',
    );
    expect(fault('02 40 20 06 00 01 00 04 00 0b 0c')).toBe(
      'an ACL start fragment of 2 bytes for an L2CAP frame of 1',
    );
  });
});
