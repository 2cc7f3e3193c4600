// btsnoop v1 / H4: the bytes of the header and of each record, the parser reading them back,
// and Wireshark's own reader (tshark) opening what the writer wrote.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BTSNOOP_EPOCH_OFFSET_US,
  btsnoopFlags,
  BtsnoopError,
  encodeBtsnoop,
  parseBtsnoop,
} from '../../../../src/core/ble/hci/btsnoop';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** 2026-01-01T00:00:00Z plus 123 µs. */
const T0_US = Date.UTC(2026, 0, 1) * 1000 + 123;

const RESET = hex('01 030c 00'); // HCI_Reset (Vol 4, Part E, 7.3.2)
const RESET_COMPLETE = hex('04 0e 04 01 030c 00'); // Command Complete, 1 packet, status 0
const ACL = hex('02 4000 0700 0300 0400 0a 0300'); // ATT Read Request, handle 0x0003, on 0x0040

function records() {
  return [
    { timestampUs: T0_US, flags: btsnoopFlags('sent', RESET), drops: 0, data: RESET },
    {
      timestampUs: T0_US + 500,
      flags: btsnoopFlags('received', RESET_COMPLETE),
      drops: 0,
      data: RESET_COMPLETE,
    },
    { timestampUs: T0_US + 2_000, flags: btsnoopFlags('sent', ACL), drops: 2, data: ACL },
  ];
}

describe('btsnoop', () => {
  it('writes the 16-byte header and each record byte for byte', () => {
    const file = encodeBtsnoop(records());
    expect(file.subarray(0, 16).toString('hex')).toBe('6274736e6f6f7000' + '00000001' + '000003ea');
    const ts = (us: number) =>
      (BigInt(us) + BTSNOOP_EPOCH_OFFSET_US).toString(16).padStart(16, '0');
    // Original length, included length, flags (bit 1: command/event), drops, timestamp, packet.
    expect(file.subarray(16, 44).toString('hex')).toBe(
      '00000004' + '00000004' + '00000002' + '00000000' + ts(T0_US) + '01030c00',
    );
    // Received (bit 0) and an event (bit 1).
    expect(file.subarray(44, 44 + 24).toString('hex')).toBe(
      '00000007' + '00000007' + '00000003' + '00000000' + ts(T0_US + 500),
    );
    // ACL sent by the host: no flag bits; drops as given.
    const third = 44 + 24 + 7;
    expect(file.readUInt32BE(third + 8)).toBe(0);
    expect(file.readUInt32BE(third + 12)).toBe(2);
    expect(file.length).toBe(16 + 3 * 24 + 4 + 7 + 12);
    // 2026-01-01T00:00:00.000123Z in microseconds since 0000-01-01 (the format's epoch, as
    // Wireshark counts it): the constant the task gives, written out.
    expect(file.subarray(32, 40).toString('hex')).toBe('00e324fb554fc07b');
  });

  it('reads back what it wrote, and a record cut short as trailing bytes', () => {
    const file = encodeBtsnoop(records());
    const parsed = parseBtsnoop(file);
    expect(parsed.trailingBytes).toBe(0);
    expect(
      parsed.records.map((r) => [
        r.timestampUs,
        r.direction,
        r.flags,
        r.drops,
        Buffer.from(r.data).toString('hex'),
      ]),
    ).toEqual([
      [T0_US, 'sent', 2, 0, '01030c00'],
      [T0_US + 500, 'received', 3, 0, '040e0401030c00'],
      [T0_US + 2_000, 'sent', 0, 2, ACL.toString('hex')],
    ]);
    const cut = parseBtsnoop(file.subarray(0, file.length - 3));
    expect(cut.records).toHaveLength(2);
    expect(cut.trailingBytes).toBe(24 + 12 - 3);
  });

  it('names the header field that is wrong', () => {
    const file = encodeBtsnoop([]);
    expect(() => parseBtsnoop(file.subarray(0, 10))).toThrow(/^header: needs 16 bytes/);
    const bad = (offset: number, value: number) => {
      const copy = Buffer.from(file);
      copy.writeUInt32BE(value, offset);
      return copy;
    };
    expect(() => parseBtsnoop(bad(0, 0))).toThrow(BtsnoopError);
    expect(() => parseBtsnoop(bad(0, 0))).toThrow(/^header\.magic/);
    expect(() => parseBtsnoop(bad(8, 2))).toThrow(/^header\.version: is 2/);
    expect(() => parseBtsnoop(bad(12, 1001))).toThrow(/^header\.datalink: is 1001/);
    expect(parseBtsnoop(file)).toEqual({ records: [], trailingBytes: 0 });
  });

  const tshark = ['/usr/bin/tshark', '/usr/local/bin/tshark'].find((p) => existsSync(p));
  it.skipIf(!tshark)('opens in Wireshark (tshark) with each packet decoded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'btsnoop-'));
    const path = join(dir, 'trace.btsnoop');
    writeFileSync(path, encodeBtsnoop(records()));
    const out = execFileSync(
      tshark as string,
      [
        '-r',
        path,
        '-T',
        'fields',
        '-E',
        'separator=|',
        '-e',
        'frame.encap_type',
        '-e',
        'frame.time_epoch',
        '-e',
        'hci_h4.direction',
        '-e',
        '_ws.col.Protocol',
        '-e',
        '_ws.col.Info',
      ],
      { encoding: 'utf8', env: { ...process.env, HOME: dir } },
    );
    const lines = out
      .trim()
      .split('\n')
      .map((l) => l.split('|'));
    expect(lines).toHaveLength(3);
    expect(lines[0]?.[1]).toBe('1767225600.000123000');
    expect(lines[0]?.[4]).toMatch(/Reset/);
    expect(lines[1]?.[4]).toMatch(/Command Complete/);
    expect(lines[2]?.[3]).toBe('ATT');
    expect(lines[2]?.[4]).toMatch(/Read Request, Handle: 0x0003/);
  });
});
