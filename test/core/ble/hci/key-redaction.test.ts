// Which bytes of an HCI packet are a link key: each command, event and SMP PDU that carries one,
// both directions, an SMP PDU split over ACL fragments, and the look-alikes that must stay.
import { describe, expect, it } from 'vitest';
import type { Direction } from '../../../../src/core/ble/hci/btsnoop';
import {
  holdsKeys,
  isRedactionNote,
  KeyFinder,
  redact,
  redactionNote,
} from '../../../../src/core/ble/hci/key-redaction';
import { traceNote } from '../../../../src/core/ble/hci/codes';

const KEY = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');
const IRK = Buffer.from('a1a2a3a4a5a6a7a8a9aaabacadaeafa0', 'hex');
const MARK = Buffer.from('REDACTEDREDACTED', 'latin1');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** An HCI command: type, opcode, length, parameters. */
const command = (op: number, params: Buffer) =>
  Buffer.concat([Buffer.of(0x01, op & 0xff, op >> 8, params.length), params]);
/** An ACL packet on handle 0x0040: a start (boundary 0b00 from the host, 0b10 from a controller) or a continuation. */
function acl(data: Buffer, boundary: 0b00 | 0b01 | 0b10, handle = 0x0040): Buffer {
  const header = Buffer.alloc(5);
  header[0] = 0x02;
  header.writeUInt16LE(handle | (boundary << 12), 1);
  header.writeUInt16LE(data.length, 3);
  return Buffer.concat([header, data]);
}
/** An L2CAP frame: length, channel, payload. */
function l2cap(cid: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16LE(payload.length, 0);
  header.writeUInt16LE(cid, 2);
  return Buffer.concat([header, payload]);
}
const smp = (code: number, body: Buffer) => l2cap(0x0006, Buffer.concat([Buffer.of(code), body]));

/** The packet as the trace gets it: a copy with the finding's bytes overwritten. */
function redacted(finder: KeyFinder, direction: Direction, packet: Buffer) {
  const found = finder.find(direction, packet);
  const copy = Buffer.from(packet);
  if (found) redact(copy, found);
  return { found, copy };
}

describe('the keys in HCI commands and events', () => {
  it('LE Enable Encryption: the LTK, not the handle, Rand or EDIV', () => {
    const params = Buffer.concat([
      Buffer.of(0x40, 0x00),
      Buffer.from('1122334455667788', 'hex'),
      Buffer.of(0x34, 0x12),
      KEY,
    ]);
    const packet = command(0x2019, params);
    const { found, copy } = redacted(new KeyFinder(), 'sent', packet);
    expect(found?.what).toBe('LTK in LE Enable Encryption');
    expect(copy.length).toBe(packet.length);
    expect(hex(copy.subarray(0, 16))).toBe(hex(packet.subarray(0, 16)));
    expect(copy.subarray(16)).toEqual(MARK);
    expect(copy.includes(KEY)).toBe(false);
    // The packet handed on (to the controller) is untouched.
    expect(packet.subarray(16)).toEqual(KEY);
  });

  it('LE Long Term Key Request Reply: the LTK after the handle', () => {
    const { found, copy } = redacted(
      new KeyFinder(),
      'sent',
      command(0x201a, Buffer.concat([Buffer.of(0x40, 0x00), KEY])),
    );
    expect(found?.what).toBe('LTK in LE Long Term Key Request Reply');
    expect(hex(copy.subarray(0, 6))).toBe('011a20124000');
    expect(copy.subarray(6)).toEqual(MARK);
  });

  it('LE Encrypt and its answer, LE Add Device To Resolving List, and the DHKey', () => {
    const finder = new KeyFinder();
    const encrypt = redacted(finder, 'sent', command(0x2017, Buffer.concat([KEY, IRK])));
    expect(encrypt.copy.subarray(4, 20)).toEqual(MARK);
    // The plaintext is not a key.
    expect(encrypt.copy.subarray(20)).toEqual(IRK);
    const answer = Buffer.concat([Buffer.of(0x04, 0x0e, 20, 1, 0x17, 0x20, 0), KEY]);
    expect(redacted(finder, 'received', answer).copy.subarray(7)).toEqual(MARK);
    const resolving = command(
      0x2027,
      Buffer.concat([Buffer.of(0), Buffer.from('665544332211', 'hex'), IRK, KEY]),
    );
    const list = redacted(finder, 'sent', resolving);
    expect(list.found?.what).toBe('peer IRK and local IRK in LE Add Device To Resolving List');
    expect(list.copy.subarray(11)).toEqual(Buffer.concat([MARK, MARK]));
    const dhKey = Buffer.concat([Buffer.of(0x04, 0x3e, 34, 0x09, 0), KEY, IRK]);
    expect(redacted(finder, 'received', dhKey).copy.subarray(5)).toEqual(
      Buffer.concat([MARK, MARK]),
    );
  });

  it('leaves packets without keys as they are: other commands, other Command Completes, events', () => {
    const finder = new KeyFinder();
    for (const [direction, packet] of [
      ['sent', command(0x2013, Buffer.alloc(14, 0x33))],
      ['received', Buffer.concat([Buffer.of(0x04, 0x0e, 20, 1, 0x18, 0x20, 0), KEY])],
      // LE Long Term Key Request event: Rand and EDIV, in clear on the air.
      ['received', Buffer.from('043e0d05400011223344556677883412', 'hex')],
      ['received', Buffer.from('0408040040000101', 'hex')],
    ] as const)
      expect(finder.find(direction, packet)).toBeUndefined();
  });
});

describe('the keys in SMP key distribution, both directions', () => {
  it.each([
    [0x06, 'LTK in SMP Encryption Information'],
    [0x08, 'IRK in SMP Identity Information'],
    [0x0a, 'CSRK in SMP Signing Information'],
  ])('code 0x%s: %s', (code, what) => {
    const finder = new KeyFinder();
    for (const [direction, boundary] of [
      ['received', 0b10],
      ['sent', 0b00],
    ] as const) {
      const packet = acl(smp(code, KEY), boundary);
      const { found, copy } = redacted(finder, direction, packet);
      expect(found?.what).toBe(what);
      expect(hex(copy.subarray(0, 10))).toBe(hex(packet.subarray(0, 10)));
      expect(copy.subarray(10)).toEqual(MARK);
    }
  });

  it('leaves Central Identification, Pairing Confirm, Random, Public Key and DHKey Check, and code 0x06 on ATT', () => {
    const finder = new KeyFinder();
    for (const packet of [
      acl(smp(0x07, Buffer.from('34121122334455667788', 'hex')), 0b10),
      acl(smp(0x03, KEY), 0b10),
      acl(smp(0x04, KEY), 0b00),
      acl(smp(0x0d, KEY), 0b00),
      acl(smp(0x0c, Buffer.alloc(64, 7)), 0b00),
      // ATT Find By Type Value Request (opcode 0x06) on channel 4: not SMP.
      acl(l2cap(0x0004, Buffer.concat([Buffer.of(0x06), KEY])), 0b00),
    ])
      expect(finder.find('sent', packet)).toBeUndefined();
  });

  it('follows an SMP PDU over ACL fragments, the L2CAP header itself split, per direction and link', () => {
    const finder = new KeyFinder();
    const frame = smp(0x08, IRK);
    // Received: the header's first 2 bytes, then 5 bytes (rest of header, code, 2 key bytes), then the rest.
    const first = redacted(finder, 'received', acl(frame.subarray(0, 2), 0b10));
    expect(first.found).toBeUndefined();
    // A fragment of another link, and of the other direction, between them.
    expect(
      finder.find('received', acl(l2cap(4, Buffer.of(0x1b, 3, 0)), 0b10, 0x41)),
    ).toBeUndefined();
    const sentStart = redacted(finder, 'sent', acl(smp(0x06, KEY).subarray(0, 9), 0b00));
    expect(sentStart.copy.subarray(10)).toEqual(MARK.subarray(0, 4));
    const second = redacted(finder, 'received', acl(frame.subarray(2, 7), 0b01));
    expect(second.found?.what).toBe('IRK in SMP Identity Information');
    expect(second.copy.subarray(5)).toEqual(
      Buffer.concat([frame.subarray(2, 5), MARK.subarray(0, 2)]),
    );
    const third = redacted(finder, 'received', acl(frame.subarray(7), 0b01));
    // The marker runs on where it left off, as in one packet.
    expect(third.copy.subarray(5)).toEqual(MARK.subarray(2));
    const sentRest = redacted(finder, 'sent', acl(smp(0x06, KEY).subarray(9), 0b01));
    expect(sentRest.copy.subarray(5)).toEqual(MARK.subarray(4));
    // The frames are whole: a continuation now belongs to nothing.
    expect(finder.find('received', acl(IRK, 0b01))).toBeUndefined();
  });

  it('leaves the continuations of a frame that is not a key PDU', () => {
    const finder = new KeyFinder();
    const att = l2cap(0x0004, Buffer.concat([Buffer.of(0x0b), KEY, IRK]));
    expect(finder.find('received', acl(att.subarray(0, 10), 0b10))).toBeUndefined();
    expect(finder.find('received', acl(att.subarray(10), 0b01))).toBeUndefined();
    const confirm = smp(0x03, KEY);
    expect(finder.find('received', acl(confirm.subarray(0, 6), 0b10))).toBeUndefined();
    expect(finder.find('received', acl(confirm.subarray(6), 0b01))).toBeUndefined();
  });
});

describe('what the trace says of a redaction', () => {
  it('tells a redacted packet from one in clear, and a note from other vendor events', () => {
    const finder = new KeyFinder();
    const packet = acl(smp(0x06, KEY), 0b10);
    const found = finder.find('received', packet)!;
    expect(holdsKeys(packet, found)).toBe(true);
    const copy = Buffer.from(packet);
    redact(copy, found);
    expect(holdsKeys(copy, new KeyFinder().find('received', copy)!)).toBe(false);
    const note = redactionNote(found);
    expect(note.length).toBeLessThanOrEqual(258);
    expect(note.subarray(3).toString('latin1')).toContain('the LTK in SMP Encryption Information');
    expect(isRedactionNote(note)).toBe(true);
    expect(isRedactionNote(traceNote('adapter reset: gone'))).toBe(false);
    expect(isRedactionNote(Buffer.of(0x04, 0xff, 0))).toBe(false);
  });
});
