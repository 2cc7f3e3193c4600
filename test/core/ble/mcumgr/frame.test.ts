// The MCUmgr header and body, byte for byte, as Zephyr's SMP protocol documentation lays them
// out (docs/mcumgr/protocol.md): Res|Ver|OP, Flags, Data Length, Group ID, Sequence Num,
// Command ID, all big-endian, then one CBOR map.
import { describe, expect, it } from 'vitest';
import {
  MCUMGR_OP,
  McumgrReassembler,
  decodeFrame,
  decodeHeader,
  encodeFrame,
  encodeHeader,
} from '../../../../src/core/ble/mcumgr/frame';
import {
  describeGeneralResult,
  describeGroupResult,
  groupResult,
} from '../../../../src/core/ble/mcumgr/groups';

const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('MCUmgr header', () => {
  it('puts Ver in bits 3–4 and OP in bits 0–2 of the first byte, then big-endian fields', () => {
    const bytes = encodeHeader({
      op: MCUMGR_OP.write,
      version: 1,
      flags: 0,
      length: 0x0102,
      group: 0x0003,
      sequence: 0x2a,
      command: 0x03,
    });
    expect(toHex(bytes)).toBe('0a000102' + '0003' + '2a' + '03');
  });

  it('reads a version 1 (original) read response: ver 0, op 1', () => {
    expect(decodeHeader(hex('01 00 0006 0001 07 00'))).toEqual({
      op: MCUMGR_OP.readResponse,
      version: 0,
      flags: 0,
      length: 6,
      group: 1,
      sequence: 7,
      command: 0,
    });
  });

  it('refuses a header shorter than 8 bytes, saying so', () => {
    expect(() => decodeHeader(hex('0a00000000'))).toThrow('header is 8 bytes, got 5');
  });
});

describe('MCUmgr frames', () => {
  it('encodes an OS echo request: {"d": "hi"} after the header', () => {
    const frame = encodeFrame(
      { op: MCUMGR_OP.write, version: 1, flags: 0, group: 0, sequence: 1, command: 0 },
      { d: 'hi' },
    );
    // a1 (map of 1) 61 64 ("d") 62 68 69 ("hi")
    expect(toHex(frame)).toBe('0a000006000001' + '00' + 'a161646268' + '69');
  });

  it('decodes a version 2 group error: {"err": {"group": 1, "rc": 9}}', () => {
    const body = hex('a1 63 657272 a2 65 67726f7570 01 62 7263 09');
    const frame = decodeFrame(
      new Uint8Array([...hex('0b00'), 0, body.length, ...hex('0001 05 01'), ...body]),
    );
    expect(frame.header).toMatchObject({ op: MCUMGR_OP.writeResponse, version: 1, group: 1 });
    expect(frame.body).toEqual({ err: { group: 1, rc: 9 } });
    expect(describeGroupResult(1, 9)).toBe('image group: 0x09 no free slot');
  });

  it('decodes an indefinite-length map, as zcbor writes them: {"rc": 8}', () => {
    const body = hex('bf 62 7263 08 ff');
    const frame = decodeFrame(
      new Uint8Array([...hex('0300'), 0, body.length, ...hex('0000 02 05'), ...body]),
    );
    expect(frame.body).toEqual({ rc: 8 });
    expect(describeGeneralResult(8)).toBe('MCUmgr: 0x08 not supported');
  });

  it('carries byte strings as bytes (an image upload chunk)', () => {
    const frame = encodeFrame(
      { op: MCUMGR_OP.write, version: 1, flags: 0, group: 1, sequence: 0, command: 1 },
      { off: 0, data: new Uint8Array([0x3d, 0xb8]) },
    );
    const back = decodeFrame(frame);
    expect(back.body.data).toEqual(new Uint8Array([0x3d, 0xb8]));
    expect(back.body.off).toBe(0);
  });

  it('refuses a frame whose length disagrees with its header', () => {
    expect(() => decodeFrame(hex('0b00 0005 0000 00 00 a0'))).toThrow(
      'header says 5 bytes of data, the frame carries 1',
    );
  });

  it('refuses data that is not CBOR, or not a map', () => {
    expect(() => decodeFrame(hex('0b00 0001 0000 00 00 ff'))).toThrow('not CBOR');
    expect(() => decodeFrame(hex('0b00 0001 0000 00 00 01'))).toThrow('must be a CBOR map');
  });
});

describe('MCUmgr result codes in words', () => {
  it('names each group by its table and says when a code is outside it', () => {
    expect(describeGroupResult(3, 3)).toBe('settings group: 0x03 key not found');
    expect(describeGroupResult(0, 2)).toBe('os group: 0x02 invalid format');
    expect(describeGroupResult(1, 0x7f)).toBe('image group: 0x7f unknown result');
    expect(describeGroupResult(9, 1)).toBe('group 9: 0x01 unknown result');
    expect(describeGeneralResult(300)).toBe('MCUmgr: 0x12c board-defined error');
    expect(groupResult('image', 'image too large')).toBe(30);
  });

  it('says what to do where Zephyr’s configuration decides the result', () => {
    expect(describeGroupResult(3, 2)).toBe(
      'settings group: 0x02 key too long (a stock Zephyr takes keys of at most 31 characters: CONFIG_MCUMGR_GRP_SETTINGS_NAME_LEN, 32 by default, counts the NUL)',
    );
    expect(describeGroupResult(1, 30)).toBe('image group: 0x1e image too large');
    expect(describeGeneralResult(1)).toBe('MCUmgr: 0x01 unknown error');
  });
});

describe('MCUmgr reassembly', () => {
  const frame = encodeFrame(
    { op: MCUMGR_OP.readResponse, version: 1, flags: 0, group: 1, sequence: 4, command: 0 },
    { images: [{ slot: 0, version: '1.2.3', hash: new Uint8Array(32).fill(7) }] },
  );

  it('joins a frame split over notifications of any size', () => {
    for (const size of [1, 3, 8, 20, 244]) {
      const joiner = new McumgrReassembler();
      const out: Uint8Array[] = [];
      for (let at = 0; at < frame.length; at += size)
        out.push(...joiner.push(frame.subarray(at, at + size)));
      expect(out).toEqual([frame]);
    }
  });

  it('splits two frames carried in one notification', () => {
    const joiner = new McumgrReassembler();
    const both = new Uint8Array([...frame, ...frame]);
    expect(joiner.push(both)).toEqual([frame, frame]);
  });

  it('drops a partial frame on reset', () => {
    const joiner = new McumgrReassembler();
    joiner.push(frame.subarray(0, 10));
    joiner.reset();
    expect(joiner.push(frame)).toEqual([frame]);
  });
});
